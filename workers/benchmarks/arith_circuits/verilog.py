"""Structural Verilog for a netlist, and an Icarus Verilog testbench run when `iverilog` exists."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from workers.benchmarks.arith_circuits.netlist import CONST0, Netlist

_CELLS = {
    "AND2": "module AND2(input a, input b, output y); assign y = a & b; endmodule",
    "OR2": "module OR2(input a, input b, output y); assign y = a | b; endmodule",
    "XOR2": "module XOR2(input a, input b, output y); assign y = a ^ b; endmodule",
    "AO21": "module AO21(input a, input b, input c, output y); assign y = (a & b) | c; endmodule",
    "HA": "module HA(input a, input b, output s, output co); assign s = a ^ b; assign co = a & b; endmodule",
    "FA": "module FA(input a, input b, input ci, output s, output co);\n"
    "  assign s = a ^ b ^ ci; assign co = (a & b) | (ci & (a ^ b)); endmodule",
}


def to_verilog(net: Netlist, module: str = "top") -> str:
    """One module per design plus the primitive cells it uses; signal n is wire `n<n>`."""
    names: dict[int, str] = {CONST0: "1'b0"}
    ports = [f"input [{len(b) - 1}:0] {n}" for n, b in net.inputs.items()]
    ports += [f"output [{len(b) - 1}:0] {n}" for n, b in net.outputs.items()]
    for bus, bits in net.inputs.items():
        for i, s in enumerate(bits):
            names[s] = f"{bus}[{i}]"
    lines = [f"module {module}({', '.join(ports)});"]
    for g in net.gates:
        for s in g.outs:
            names[s] = f"n{s}"
            lines.append(f"  wire n{s};")
    for idx, g in enumerate(net.gates):
        spec = net.library[g.cell]
        conns = [f".{p}({names[s]})" for p, s in zip(spec.inputs, g.ins, strict=False)]
        conns += [f".{p}({names[s]})" for p, s in zip(spec.outputs, g.outs, strict=False)]
        lines.append(f"  {g.cell} g{idx}({', '.join(conns)});")
    for bus, bits in net.outputs.items():
        for i, s in enumerate(bits):
            lines.append(f"  assign {bus}[{i}] = {names[s]};")
    lines.append("endmodule")
    used = sorted({g.cell for g in net.gates})
    return "\n".join(lines + [""] + [_CELLS[c] for c in used]) + "\n"


def iverilog_available() -> bool:
    return shutil.which("iverilog") is not None and shutil.which("vvp") is not None


def iverilog_check(
    net: Netlist,
    vectors: dict[str, np.ndarray],
    expected: np.ndarray,
    module: str = "top",
    timeout: float = 300.0,
) -> int:
    """Simulate the Verilog with Icarus on the given vectors; return the number of mismatches.

    Vectors and expected outputs are written to a hex memory file that the testbench reads
    with $readmemh, so the check does not depend on this project's simulator.
    """
    if not iverilog_available():
        raise RuntimeError("iverilog/vvp not found on PATH")
    buses = list(net.inputs)
    out_bus = next(iter(net.outputs))
    widths = {b: len(net.inputs[b]) for b in buses}
    w_out = len(net.outputs[out_bus])
    n = len(expected)
    with tempfile.TemporaryDirectory(prefix="arith-iverilog-") as tmp:
        d = Path(tmp)
        (d / "dut.v").write_text(to_verilog(net, module))
        for b in buses + ["expect"]:
            data = expected if b == "expect" else vectors[b]
            (d / f"{b}.hex").write_text(
                "\n".join(f"{int(v):x}" for v in np.asarray(data, dtype=np.uint64)) + "\n"
            )
        decls = "\n".join(
            f"  reg [{widths[b] - 1}:0] {b}_mem [0:{n - 1}]; reg [{widths[b] - 1}:0] {b};"
            for b in buses
        )
        loads = "\n".join(f'    $readmemh("{d / (b + ".hex")}", {b}_mem);' for b in buses)
        sets = " ".join(f"{b} = {b}_mem[i];" for b in buses)
        conns = ", ".join(f".{b}({b})" for b in buses + [out_bus])
        tb = f"""`timescale 1ns/1ps
module tb;
{decls}
  reg [{w_out - 1}:0] expect_mem [0:{n - 1}];
  wire [{w_out - 1}:0] {out_bus};
  integer i, errors;
  {module} dut({conns});
  initial begin
{loads}
    $readmemh("{d / "expect.hex"}", expect_mem);
    errors = 0;
    for (i = 0; i < {n}; i = i + 1) begin
      {sets} #1;
      if ({out_bus} !== expect_mem[i]) errors = errors + 1;
    end
    $display("MISMATCHES %0d", errors);
    $finish;
  end
endmodule
"""
        (d / "tb.v").write_text(tb)
        subprocess.run(
            ["iverilog", "-o", str(d / "sim"), str(d / "tb.v"), str(d / "dut.v")],
            check=True,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        res = subprocess.run(
            ["vvp", str(d / "sim")], check=True, capture_output=True, text=True, timeout=timeout
        )
        for line in res.stdout.splitlines():
            if line.startswith("MISMATCHES"):
                return int(line.split()[1])
        raise RuntimeError(f"iverilog testbench printed no result: {res.stdout[-500:]}")
