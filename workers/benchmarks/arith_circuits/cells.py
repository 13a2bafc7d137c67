"""Cell library for the timing and area models: pin-dependent delays and cell areas.

Arith-DAS (Xia et al., NeurIPS 2025) optimises against a timing model in which each
compressor pin has its own delay to each output (a full adder's carry-in is the fast pin).
No synthesis tool or liberty file is available here, so the default library uses normalised
units (AND2 = 1 area, 1 delay) with ratios in the range of a 45 nm open cell library's FA/HA/
XOR/AO21 cells. Every figure this project reports is in these units, not in ps or um^2.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Cell:
    """A combinational cell: input pin names, output pin names, area, and pin-to-pin delays."""

    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    area: float
    # delay[(input_pin, output_pin)]; a missing pair means no timing arc
    delay: dict[tuple[str, str], float] = field(default_factory=dict)

    def arc(self, pin_in: str, pin_out: str) -> float:
        return self.delay[(pin_in, pin_out)]


def _arcs(table: dict[str, dict[str, float]]) -> dict[tuple[str, str], float]:
    return {(i, o): d for o, row in table.items() for i, d in row.items()}


@dataclass(frozen=True)
class CellLibrary:
    """The cells a netlist may instantiate. `cells[name]` is looked up by the netlist."""

    name: str
    cells: dict[str, Cell]

    def __getitem__(self, name: str) -> Cell:
        try:
            return self.cells[name]
        except KeyError:
            raise KeyError(f"cell library {self.name!r} has no cell {name!r}") from None


def unit_library() -> CellLibrary:
    """Normalised library: the FA carry-in pin is faster than a/b to both outputs (pin-dependent)."""
    cells = [
        Cell("AND2", ("a", "b"), ("y",), 1.0, _arcs({"y": {"a": 1.0, "b": 1.0}})),
        Cell("OR2", ("a", "b"), ("y",), 1.0, _arcs({"y": {"a": 1.0, "b": 1.0}})),
        Cell("XOR2", ("a", "b"), ("y",), 2.0, _arcs({"y": {"a": 1.6, "b": 1.6}})),
        # y = (a & b) | c: the OR-side pin c is the fast one
        Cell("AO21", ("a", "b", "c"), ("y",), 2.0, _arcs({"y": {"a": 1.4, "b": 1.4, "c": 1.0}})),
        Cell(
            "HA",
            ("a", "b"),
            ("s", "co"),
            3.0,
            _arcs({"s": {"a": 1.6, "b": 1.6}, "co": {"a": 1.0, "b": 1.0}}),
        ),
        Cell(
            "FA",
            ("a", "b", "ci"),
            ("s", "co"),
            5.0,
            _arcs({"s": {"a": 3.0, "b": 3.0, "ci": 1.8}, "co": {"a": 2.4, "b": 2.4, "ci": 1.4}}),
        ),
    ]
    return CellLibrary("unit", {c.name: c for c in cells})
