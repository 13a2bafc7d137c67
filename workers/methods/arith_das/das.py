"""Arith-DAS: differentiable search over compressor-tree interconnect (Xia et al., NeurIPS 2025).

The multiplier is a multi-relational DAG: partial-product nodes, FA/HA compressor nodes, and
typed edges "signal -> pin r" with r in {a, b, ci} (FA) / {a, b} (HA) / pass-through. In every
stage j and column c the candidate edges connect each of the column's n input signals to each
of its n slots; Arith-DAS learns edge logits theta[j][c] (n x n) and relaxes the discrete choice:

  P = Sinkhorn(exp((theta + g) / tau))                (Gumbel-softmax edge probabilities; the
                                                       Sinkhorn rows/cols make it one edge per pin)
  t_slot = P^T t_in                                   (expected arrival at each pin)
  t_out  = LSE_beta_k (t_slot_k + d(pin_k -> out))    (pin-dependent delays, smooth max)

stage by stage, then through the final adder's timing graph; the loss is the smooth-max output
arrival (the circuit delay). Area is a sum of cell areas and does not depend on the interconnect
once the compressor allocation and adder are fixed, so it enters through the design points.
Discrete designs are read off with a maximum-weight assignment on theta (legalisation) and
evaluated with exact STA; the best legal design seen is returned.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from scipy.optimize import linear_sum_assignment

from workers.benchmarks.arith_circuits.compressor import Wiring
from workers.benchmarks.arith_circuits.netlist import CONST0, Netlist
from workers.benchmarks.arith_circuits.problem import WiringProblem


def smooth_max(x: torch.Tensor, beta: float) -> torch.Tensor:
    """beta * logsumexp(x / beta): a differentiable upper bound on max(x), tight as beta -> 0."""
    return beta * torch.logsumexp(x / beta, dim=-1)


def sinkhorn(log_alpha: torch.Tensor, iters: int) -> torch.Tensor:
    """Alternate row/column normalisation in log space -> an (approximately) doubly stochastic matrix."""
    for _ in range(iters):
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-1, keepdim=True)
        log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-2, keepdim=True)
    return log_alpha.exp()


def _levelise(net: Netlist) -> list[tuple[str, torch.Tensor, list[torch.Tensor]]]:
    """Group gates by (logic level, cell) so the soft STA runs one batched op per group."""
    level = {s: 0 for s in net.inputs["x"]}
    level[CONST0] = 0
    groups: dict[tuple[int, str], list] = {}
    for g in net.gates:
        lv = 1 + max(level[s] for s in g.ins)
        for s in g.outs:
            level[s] = lv
        groups.setdefault((lv, g.cell), []).append(g)
    out = []
    for (_lv, cell), gates in sorted(groups.items()):
        ins = torch.tensor([g.ins for g in gates])
        outs = [torch.tensor([g.outs[k] for g in gates]) for k in range(len(gates[0].outs))]
        out.append((cell, ins, outs))
    return out


def soft_sta(
    net: Netlist,
    inputs: torch.Tensor,
    beta: float,
    plan: list[tuple[str, torch.Tensor, list[torch.Tensor]]] | None = None,
) -> torch.Tensor:
    """Differentiable STA of a netlist whose single input bus is `x`; returns output arrivals."""
    plan = plan if plan is not None else _levelise(net)
    t = torch.zeros(net.n_signals, dtype=inputs.dtype)
    t = t.index_put((torch.tensor(net.inputs["x"], dtype=torch.long),), inputs)
    for cell, ins, outs in plan:
        spec = net.library[cell]
        x = t[ins]  # (gates, pins)
        for pin_out, idx in zip(spec.outputs, outs, strict=False):
            d = torch.tensor([spec.delay[(p, pin_out)] for p in spec.inputs], dtype=inputs.dtype)
            t = t.index_put((idx,), smooth_max(x + d, beta))
    return t[torch.tensor(net.outputs["p"], dtype=torch.long)]


class _StagePlan:
    """Static index structure of one stage, so a relaxed stage is a handful of batched ops.

    Arrival times live in one flat vector per stage (columns concatenated) with a trailing
    zero used as padding. Searchable columns are padded to n_max and relaxed together.
    """

    def __init__(
        self, tree, j: int, searchable: list[int], offsets: list[int], n_flat: int
    ) -> None:
        width = tree.width
        lays = [tree.layout(j, c) for c in range(width)]
        self.cols = searchable
        self.n_max = max((lays[c].n_in for c in searchable), default=0)
        pad = n_flat  # index of the zero padding element
        slot_off, pos = [], 0
        for c in range(width):
            slot_off.append(pos)
            pos += lays[c].n_in
        self.n_slots = pos
        k, n = len(searchable), self.n_max
        self.gather_in = torch.full((k, n), pad, dtype=torch.long)
        self.slot_pos = torch.full((k, n), pos, dtype=torch.long)  # pos = dummy slot
        self.real = torch.zeros((k, n, n), dtype=torch.bool)
        self.pad_diag = torch.zeros((k, n, n), dtype=torch.bool)
        for r, c in enumerate(searchable):
            m = lays[c].n_in
            self.gather_in[r, :m] = torch.arange(offsets[c], offsets[c] + m)
            self.slot_pos[r, :m] = torch.arange(slot_off[c], slot_off[c] + m)
            self.real[r, :m, :m] = True
            self.pad_diag[r, torch.arange(m, n), torch.arange(m, n)] = True
        fixed = [c for c in range(width) if c not in set(searchable)]
        self.fixed_src = torch.tensor(
            [offsets[c] + i for c in fixed for i in range(lays[c].n_in)], dtype=torch.long
        )
        self.fixed_dst = torch.tensor(
            [slot_off[c] + i for c in fixed for i in range(lays[c].n_in)], dtype=torch.long
        )
        fa = [slot_off[c] + 3 * f + np.arange(3) for c in range(width) for f in range(lays[c].n_fa)]
        ha = [
            slot_off[c] + 3 * lays[c].n_fa + 2 * h + np.arange(2)
            for c in range(width)
            for h in range(lays[c].n_ha)
        ]
        self.fa = torch.tensor(np.array(fa).reshape(-1, 3), dtype=torch.long)
        self.ha = torch.tensor(np.array(ha).reshape(-1, 2), dtype=torch.long)
        # next stage, column by column: passes, FA sums, HA sums, carries of column c-1 (FA, HA)
        n_fa, n_ha = len(fa), len(ha)
        base_fs, base_hs = self.n_slots, self.n_slots + n_fa
        base_fc, base_hc = base_hs + n_ha, base_hs + n_ha + n_fa
        fa_start = np.cumsum([0] + [lays[c].n_fa for c in range(width)])
        ha_start = np.cumsum([0] + [lays[c].n_ha for c in range(width)])
        order = []
        for c in range(width):
            lay = lays[c]
            first_pass = slot_off[c] + 3 * lay.n_fa + 2 * lay.n_ha
            order += list(range(first_pass, first_pass + lay.n_pass))
            order += list(range(base_fs + fa_start[c], base_fs + fa_start[c + 1]))
            order += list(range(base_hs + ha_start[c], base_hs + ha_start[c + 1]))
            if c > 0:
                order += list(range(base_fc + fa_start[c - 1], base_fc + fa_start[c]))
                order += list(range(base_hc + ha_start[c - 1], base_hc + ha_start[c]))
        self.next_order = torch.tensor(order, dtype=torch.long)


class ArithDAS:
    """Gradient-based interconnect search. Hyper-parameters follow DARTS-style relaxation.

    Parameters: steps (Adam updates), lr, tau0/tau1 (Gumbel temperature, annealed
    geometrically), beta (smooth-max temperature, in delay units), sinkhorn_iters, eval_every
    (how often the discretised design is evaluated exactly), init_scale (std of the initial logits),
    init ("greedy": logits start at init_strength on the timing-driven greedy edges, so the
    search refines that heuristic; "default": on the in-order edges; "random": noise only).
    """

    def __init__(
        self,
        steps: int = 150,
        lr: float = 0.3,
        tau0: float = 1.0,
        tau1: float = 0.1,
        beta: float = 0.3,
        sinkhorn_iters: int = 8,
        eval_every: int = 5,
        init_scale: float = 0.01,
        init: str = "default",
        init_strength: float = 2.0,
        seed: int = 0,
    ) -> None:
        if init not in ("greedy", "default", "random"):
            raise ValueError(f"init must be 'greedy', 'default' or 'random', not {init!r}")
        if steps < 1:
            raise ValueError(f"steps must be >= 1, got {steps}")
        if not (tau0 > 0 and tau1 > 0 and beta > 0):
            raise ValueError("tau0, tau1 and beta must be positive")
        self.steps, self.lr, self.tau0, self.tau1, self.beta = steps, lr, tau0, tau1, beta
        self.sinkhorn_iters, self.eval_every, self.init_scale, self.seed = (
            sinkhorn_iters,
            eval_every,
            init_scale,
            seed,
        )
        self.init, self.init_strength = init, init_strength
        self.history: list[tuple[int, float, float]] = []  # (step, soft delay, best exact delay)

    def _searchable(self, problem: WiringProblem) -> list[tuple[int, int]]:
        tree = problem.tree
        return [
            (j, c)
            for j in range(tree.n_stages)
            for c in range(tree.width)
            if tree.heights[j][c] >= 2 and sum(tree.alloc[j][c]) > 0
        ]

    def decode(self, problem: WiringProblem, theta: dict[tuple[int, int], torch.Tensor]) -> Wiring:
        wiring = problem.identity()
        for (j, c), th in theta.items():
            rows, cols = linear_sum_assignment(th.detach().numpy(), maximize=True)
            perm = np.empty(len(rows), dtype=int)
            perm[cols] = rows  # slot -> input position
            wiring[j][c] = perm
        return wiring

    def _plans(self, problem: WiringProblem, cols: dict[int, list[int]]):
        key = id(problem)
        if getattr(self, "_plan_key", None) != key:
            tree, plans = problem.tree, []
            for j in range(tree.n_stages):
                offsets = np.concatenate([[0], np.cumsum(tree.heights[j])]).tolist()
                plans.append(_StagePlan(tree, j, cols.get(j, []), offsets, offsets[-1]))
            self._plan_cache = (plans, _levelise(problem.adder))
            self._plan_key = key
        return self._plan_cache

    def soft_delay(
        self,
        problem: WiringProblem,
        theta: dict[tuple[int, int], torch.Tensor],
        tau: float,
        gen: torch.Generator | None,
    ) -> torch.Tensor:
        tree, lib, beta = problem.tree, problem.library, self.beta
        fa, ha = lib["FA"], lib["HA"]
        d_fa = {o: torch.tensor([fa.arc(p, o) for p in ("a", "b", "ci")]) for o in ("s", "co")}
        d_ha = {o: torch.tensor([ha.arc(p, o) for p in ("a", "b")]) for o in ("s", "co")}
        cols: dict[int, list[int]] = {}
        for j, c in theta:
            cols.setdefault(j, []).append(c)
        plans, adder_plan = self._plans(problem, cols)
        t = torch.tensor([x for col in problem.arrival0 for x in col], dtype=torch.float32)
        for j in range(tree.n_stages):
            pl = plans[j]
            tz = torch.cat([t, torch.zeros(1)])
            slots = torch.zeros(pl.n_slots + 1)
            if pl.cols:
                n = pl.n_max
                logits = torch.full((len(pl.cols), n, n), -1e4)
                for r, c in enumerate(pl.cols):
                    m = tree.heights[j][c]
                    logits[r, :m, :m] = theta[(j, c)]
                if gen is not None:
                    u = torch.rand(logits.shape, generator=gen).clamp(1e-9, 1 - 1e-9)
                    logits = (
                        logits - torch.log(-torch.log(u)) * pl.real
                    )  # Gumbel noise on real edges
                logits = torch.where(pl.pad_diag, torch.zeros(()), logits)  # padding maps to itself
                P = sinkhorn(logits / tau, self.sinkhorn_iters)
                x = torch.einsum("kij,ki->kj", P, tz[pl.gather_in])  # expected pin arrival
                slots = slots.index_put((pl.slot_pos.reshape(-1),), x.reshape(-1))
            if len(pl.fixed_src):
                slots = slots.index_put((pl.fixed_dst,), t[pl.fixed_src])
            slots = slots[: pl.n_slots]
            xf, xh = slots[pl.fa], slots[pl.ha]
            parts = [
                slots,
                smooth_max(xf + d_fa["s"], beta) if len(pl.fa) else torch.zeros(0),
                smooth_max(xh + d_ha["s"], beta) if len(pl.ha) else torch.zeros(0),
                smooth_max(xf + d_fa["co"], beta) if len(pl.fa) else torch.zeros(0),
                smooth_max(xh + d_ha["co"], beta) if len(pl.ha) else torch.zeros(0),
            ]
            t = torch.cat(parts)[pl.next_order]
        out = soft_sta(problem.adder, t, beta, adder_plan)
        return smooth_max(out, beta)

    def optimise(
        self, problem: WiringProblem, on_step: Callable[[int, float, float], None] | None = None
    ) -> Wiring:
        gen = torch.Generator().manual_seed(self.seed)
        if self.init == "greedy":
            from workers.methods.arith_baselines.wiring import greedy_wiring

            start = greedy_wiring(problem)
        else:
            start = problem.identity()
        theta = {}
        for j, c in self._searchable(problem):
            n = problem.tree.heights[j][c]
            th = self.init_scale * torch.randn(n, n, generator=gen)
            if self.init != "random":
                th[torch.as_tensor(start[j][c]), torch.arange(n)] += self.init_strength
            theta[(j, c)] = th.requires_grad_(True)
        best = start if self.init != "random" else problem.identity()
        best_delay = problem.delay(best)
        if not theta:
            return best
        opt = torch.optim.Adam(list(theta.values()), lr=self.lr)
        self.history = []
        for step in range(self.steps):
            tau = self.tau0 * (self.tau1 / self.tau0) ** (step / max(1, self.steps - 1))
            loss = self.soft_delay(problem, theta, tau, gen)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % self.eval_every == 0 or step == self.steps - 1:
                cand = self.decode(problem, theta)
                d = problem.delay(cand)
                if d < best_delay:
                    best, best_delay = cand, d
                self.history.append((step, float(loss.detach()), best_delay))
                if on_step:
                    on_step(step, float(loss.detach()), best_delay)
        return best
