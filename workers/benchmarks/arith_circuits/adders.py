"""Final carry-propagate adders: ripple-carry and the Sklansky, Kogge-Stone, Brent-Kung prefix adders."""

from __future__ import annotations

from workers.benchmarks.arith_circuits.netlist import CONST0, Netlist

ADDERS = ("ripple", "sklansky", "kogge_stone", "brent_kung")


def _prefix_levels(kind: str, n: int) -> list[list[tuple[int, int]]]:
    """Levels of (i, k) combines: node i absorbs node k, using the previous level's values."""
    levels: list[list[tuple[int, int]]] = []
    if kind == "kogge_stone":
        d = 1
        while d < n:
            levels.append([(i, i - d) for i in range(d, n)])
            d *= 2
    elif kind == "sklansky":
        lvl = 0
        while (1 << lvl) < n:
            levels.append([(i, ((i >> lvl) << lvl) - 1) for i in range(n) if (i >> lvl) & 1])
            lvl += 1
    elif kind == "brent_kung":
        d, ups = 1, []
        while d < n:
            levels.append([(i, i - d) for i in range(2 * d - 1, n, 2 * d)])
            ups.append(d)
            d *= 2
        for d in reversed(ups[:-1] if ups else []):
            levels.append([(i, i - d) for i in range(3 * d - 1, n, 2 * d)])
    else:
        raise ValueError(f"prefix adder must be one of {ADDERS[1:]}, not {kind!r}")
    return [lv for lv in levels if lv]


def final_adder(net: Netlist, columns: list[list[int]], kind: str) -> list[int]:
    """Add the (at most two) rows left in `columns`; return one sum bit per column (carry-out dropped)."""
    if kind not in ADDERS:
        raise ValueError(f"adder must be one of {ADDERS}, not {kind!r}")
    if any(len(col) > 2 for col in columns):
        raise ValueError("final adder: every column must hold at most two signals")
    width = len(columns)
    low = next((c for c, col in enumerate(columns) if len(col) == 2), width)
    out = [col[0] if col else CONST0 for col in columns[:low]]
    if low == width:
        return out
    a = [col[0] if col else CONST0 for col in columns[low:]]
    b = [col[1] if len(col) == 2 else CONST0 for col in columns[low:]]
    n = len(a)
    if kind == "ripple":
        s, carry = net.add_gate("HA", a[0], b[0])
        out.append(s)
        for i in range(1, n):
            s, carry = net.add_gate("FA", a[i], b[i], carry)  # carry enters on the fast ci pin
            out.append(s)
        return out
    p, g = zip(
        *(net.add_gate("HA", a[i], b[i]) for i in range(n)), strict=False
    )  # HA: s = p, co = g
    G, P, lo = list(g), list(p), list(range(n))
    for level in _prefix_levels(kind, n):
        G0, P0, lo0 = list(G), list(P), list(lo)
        for i, k in level:
            if lo0[i] - 1 != k:
                raise RuntimeError(f"{kind}: combine ({i},{k}) is not adjacent")
            (G[i],) = net.add_gate("AO21", P0[i], G0[k], G0[i])  # G = G_i | P_i & G_k
            if lo0[k] > 0:
                (P[i],) = net.add_gate("AND2", P0[i], P0[k])
            lo[i] = lo0[k]
    if any(x != 0 for x in lo[: n - 1]):
        raise RuntimeError(f"{kind}: prefix tree does not cover every bit")
    out.append(p[0])
    for i in range(1, n):
        (s,) = net.add_gate("XOR2", p[i], G[i - 1])
        out.append(s)
    return out
