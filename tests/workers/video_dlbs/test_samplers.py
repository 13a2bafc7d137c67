"""Sampler math: exact NFE, greedy == DLBS(B=1), top-B selection, lookahead == DDIM decode."""

import math

import pytest
import torch

from workers.core import get_method
from workers.methods.dlbs.samplers import (
    beam_nfe,
    beam_search,
    best_of_n,
    ddim,
    ddim_parts,
    lookahead,
    lookahead_indices,
    plan_beam,
)
from workers.models.video_diffusion.interface import CountedModel, uniform_schedule
from workers.models.video_diffusion.model import cosine_alphas_cumprod


class ToyModel:
    """A deterministic nonlinear 'eps-predictor' on 6-dim latents."""

    latent_shape = (2, 3)

    def __init__(self):
        self.alphas_cumprod = cosine_alphas_cumprod(100)

    def schedule(self, steps):
        return uniform_schedule(self.alphas_cumprod, steps)

    def eps(self, z, t, cond):
        return torch.tanh(0.7 * z + 0.01 * t + float(cond))

    def decode(self, z):
        return z


TARGET = torch.tensor([[0.5, -1.0, 0.2], [1.0, 0.0, -0.3]])


def scorer(z):
    return -((z - TARGET) ** 2).flatten(1).sum(1)


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize(
    "S,B,K,T,search",
    [
        (6, 1, 3, 1, None),
        (6, 2, 4, 1, None),
        (8, 3, 2, 3, None),
        (5, 2, 2, 10, None),
        (8, 2, 3, 2, range(2, 5)),
        (4, 1, 1, 1, range(0)),
    ],
)
def test_beam_nfe_is_exact(S, B, K, T, search):
    m = CountedModel(ToyModel())
    res = beam_search(
        m, 0.0, S, scorer, gen(), beams=B, candidates=K, lookahead_steps=T, search_steps=search
    )
    assert res.nfe == m.nfe == beam_nfe(S, B, K, T, search)
    searched = set(range(S - 1) if search is None else search)
    by_hand = B + sum(B * K * min(T, S - 1 - i) if i in searched else B for i in range(S - 1))
    assert res.nfe == by_hand


def test_ddim_and_best_of_n_nfe():
    m = CountedModel(ToyModel())
    _, nfe = ddim(m, 0.0, 7, gen())
    assert nfe == 7 == m.nfe
    res = best_of_n(m, 0.0, 7, 5, scorer, gen(), batch=2)
    assert res.nfe == 35 and m.nfe == 42


def test_ddim_eta0_is_deterministic_given_the_noise():
    a, _ = ddim(ToyModel(), 0.0, 10, gen(3))
    b, _ = ddim(ToyModel(), 0.0, 10, gen(3))
    assert torch.equal(a, b)
    g = gen(3)
    ddim(ToyModel(), 0.0, 10, g)
    g2 = gen(3)
    torch.randn((1, 2, 3), generator=g2)  # eta = 0 draws only the initial noise
    assert torch.equal(torch.randn(4, generator=g), torch.randn(4, generator=g2))
    c, _ = ddim(ToyModel(), 0.0, 10, gen(3), eta=1.0)
    assert not torch.equal(a, c)


def test_lookahead_with_all_remaining_steps_equals_full_ddim_decode():
    model = ToyModel()
    S = 9
    sched = model.schedule(S)
    z0, _ = ddim(model, 0.0, S, gen(5))
    zT = torch.randn((1, 2, 3), generator=gen(5))
    x0, _ = lookahead(CountedModel(model), zT, 0, sched, 0.0, steps=S)
    assert torch.allclose(x0, z0, atol=1e-6)
    # from the middle: run p steps of DDIM by hand, then compare
    p, z = 4, zT.clone()
    for i in range(S):
        if i == p:
            zp = z.clone()
        e = model.eps(z, sched.timesteps[i], 0.0)
        _, z, _ = ddim_parts(z, e, float(sched.alphas[i]), sched.alpha_after(i), 0.0)
    m = CountedModel(model)
    x, _ = lookahead(m, zp, p, sched, 0.0, steps=S - p)
    assert torch.allclose(x, z, atol=1e-6) and m.nfe == S - p
    x_more, _ = lookahead(CountedModel(model), zp, p, sched, 0.0, steps=100)  # capped at S - p
    assert torch.allclose(x_more, z, atol=1e-6)


def test_lookahead_indices():
    assert lookahead_indices(10, 0, 1) == [0]
    assert lookahead_indices(10, 4, 3) == [4, 6, 8]
    assert lookahead_indices(10, 7, 8) == [7, 8, 9]


def test_greedy_is_dlbs_with_one_beam():
    greedy = get_method("dlbs-greedy")()
    dlbs1 = get_method("dlbs")({"beams": 1})
    for budget in (20, 40, 80):
        a = greedy.sample(
            CountedModel(ToyModel()), 0.0, scorer, steps=10, budget=budget, generator=gen(1)
        )
        b = dlbs1.sample(
            CountedModel(ToyModel()), 0.0, scorer, steps=10, budget=budget, generator=gen(1)
        )
        assert torch.equal(a.latent, b.latent) and a.nfe == b.nfe
    direct = beam_search(ToyModel(), 0.0, 10, scorer, gen(1), beams=1, candidates=4)
    via = get_method("dlbs-greedy")().sample(
        CountedModel(ToyModel()), 0.0, scorer, steps=10, budget=40, generator=gen(1)
    )
    assert torch.equal(direct.latent, via.latent)


def test_beam_keeps_the_best_b_of_bk_by_the_scorer():
    B, K = 3, 4
    calls = []

    def recording(z):
        s = scorer(z)
        calls.append((z.clone(), s.clone()))
        return s

    res = beam_search(
        ToyModel(),
        0.0,
        8,
        recording,
        gen(2),
        beams=B,
        candidates=K,
        lookahead_steps=2,
        keep_trace=True,
    )
    assert len(res.trace) == 7
    for step in res.trace:
        scores = torch.tensor(step["scores"])
        assert len(scores) == B * K
        kept = set(step["kept"])
        assert len(kept) == B
        threshold = scores.topk(B).values.min()
        assert all(scores[k] >= threshold for k in kept)
        assert all(scores[j] <= threshold for j in set(range(B * K)) - kept)
    final_scores = calls[-1][1]
    assert res.score == pytest.approx(float(final_scores.max()))


def test_search_beats_a_single_sample_on_the_toy_reward():
    single = [scorer(ddim(ToyModel(), 0.0, 10, gen(s), eta=1.0)[0]).item() for s in range(8)]
    searched = [
        beam_search(ToyModel(), 0.0, 10, scorer, gen(s), beams=2, candidates=4).score
        for s in range(8)
    ]
    assert sum(searched) > sum(single)


@pytest.mark.parametrize("S", [5, 10, 20])
@pytest.mark.parametrize("T", [1, 2, 4, 8])
def test_plan_fits_the_budget(S, T):
    for kb in (1, 2, 4, 8, 16, 32):
        budget = kb * S
        plan = plan_beam(S, budget, T)
        assert plan.nfe == beam_nfe(S, plan.beams, plan.candidates, T, plan.search_steps)
        assert plan.nfe <= budget or plan.candidates == 1
        if T == 1 and kb >= 2:
            assert plan.beams * plan.candidates >= kb // 2 and len(plan.search_steps) == S - 1
    m = CountedModel(ToyModel())
    la = get_method("dlbs-lookahead")({"lookahead_steps": 3})
    res = la.sample(m, 0.0, scorer, steps=10, budget=80, generator=gen())
    assert res.nfe == m.nfe <= 80
    assert math.isfinite(res.score)
