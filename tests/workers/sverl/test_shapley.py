import numpy as np
import pytest
import torch

from workers.benchmarks.sverl_explain.exact import (
    coalitions,
    conditional_table,
    mask_index,
    shapley_exact,
    shapley_from_table,
)
from workers.methods.sverl_baselines.sampling import enumeration_shapley, permutation_shapley
from workers.methods.sverl_fastsverl.fastsverl import FastSVERL, ShapleySampler, importance_weights

HAND_GAME = {(): 0, (0,): 10, (1,): 20, (2,): 30, (0, 1): 40, (0, 2): 50, (1, 2): 60, (0, 1, 2): 90}


def test_exact_enumeration_matches_hand_computed_example():
    def v(m):
        return HAND_GAME[tuple(np.flatnonzero(m))]

    # by hand with weights 1/3, 1/6, 1/6, 1/3: phi_0 = 10/3 + 20/6 + 20/6 + 30/3 = 20, etc.
    assert shapley_exact(v, 3) == pytest.approx([20.0, 30.0, 40.0])


def test_coalition_indexing_round_trips():
    masks = coalitions(5)
    assert np.array_equal(mask_index(masks), np.arange(32))


# 4-feature game with a known characteristic: linear terms, a pair and a triple interaction.
A = torch.tensor([1.0, -2.0, 0.5, 3.0])


def four_feature_char(states: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    m = masks.float()
    x = states
    lin = (A * x * m).sum(1)
    pair = 2.0 * x[:, 0] * x[:, 1] * m[:, 0] * m[:, 1]
    triple = -1.5 * x[:, 1] * x[:, 2] * x[:, 3] * m[:, 1] * m[:, 2] * m[:, 3]
    return (lin + pair + triple)[:, None]


def closed_form(states: torch.Tensor) -> torch.Tensor:
    x = states
    phi = A * x
    phi[:, 0] += x[:, 0] * x[:, 1]  # 2.0 * x0 * x1 split between the two players
    phi[:, 1] += x[:, 0] * x[:, 1]
    t = -1.5 * x[:, 1] * x[:, 2] * x[:, 3] / 3
    phi[:, 1:] += t[:, None]
    return phi[:, :, None]


@pytest.fixture
def four_states():
    g = torch.Generator().manual_seed(0)
    return torch.randint(-2, 3, (48, 4), generator=g).float()


def test_enumeration_matches_closed_form_on_four_feature_game(four_states):
    phi = enumeration_shapley(four_feature_char, four_states)
    assert torch.allclose(phi, closed_form(four_states), atol=1e-5)


def test_permutation_sampling_converges_to_exact(four_states):
    g = torch.Generator().manual_seed(1)
    few = permutation_shapley(four_feature_char, four_states, 2, g)
    many = permutation_shapley(four_feature_char, four_states, 400, g)
    exact = closed_form(four_states)
    assert ((many - exact) ** 2).mean() < 0.2 * ((few - exact) ** 2).mean()
    # every single permutation is efficient
    assert torch.allclose(
        few.sum(1), four_feature_char(four_states, torch.ones(48, 4, dtype=torch.bool)), atol=1e-5
    )


def test_fastsverl_learns_exact_values_and_is_efficient(four_states):
    est = FastSVERL(4, 1, hidden=64, updates=1500, batch=64, lr=3e-3, seed=0)
    est.fit(four_states, four_feature_char)
    phi = est.shapley(four_states)
    exact = closed_form(four_states)
    grand = four_feature_char(four_states, torch.ones(48, 4, dtype=torch.bool))
    null = four_feature_char(four_states, torch.zeros(48, 4, dtype=torch.bool))
    assert torch.allclose(phi.sum(1), grand - null, atol=1e-4)  # efficiency holds exactly
    err = ((phi - exact) ** 2).mean()
    assert err < 0.05 * (exact**2).mean(), float(err)


def test_shapley_kernel_sampler_distribution():
    d, n = 6, 60000
    S = ShapleySampler(d, torch.Generator().manual_seed(0)).kernel(n)
    sizes = S.sum(1)
    k = np.arange(1, d)
    p = (d - 1) / (k * (d - k))
    p = p / p.sum()
    freq = np.bincount(sizes.numpy(), minlength=d)[1:d] / n
    assert np.allclose(freq, p, atol=0.01)
    assert sizes.min() >= 1 and sizes.max() <= d - 1
    # within a size, every feature is equally likely
    assert np.allclose(S.float().mean(0).numpy(), S.float().mean().item(), atol=0.01)


def test_importance_weights_are_self_normalised_and_clipped():
    tgt = torch.log(torch.tensor([0.5, 0.1, 0.9, 0.3]))
    beh = torch.log(torch.tensor([0.25, 0.5, 0.3, 0.3]))
    w = importance_weights(tgt, beh, clip=100.0)
    assert w.mean().item() == pytest.approx(1.0)
    raw = torch.tensor([2.0, 0.2, 3.0, 1.0])
    assert torch.allclose(w, raw / raw.mean())
    assert importance_weights(tgt, beh, clip=0.5).max().item() <= 1.5


def test_conditional_characteristic_by_hand():
    states = np.array([[0, 0], [0, 1], [1, 0]], dtype=float)
    weights = np.array([1.0, 1.0, 2.0])
    f = np.array([[1.0], [2.0], [4.0]])
    table = conditional_table(states, weights, f)
    assert table[0, :, 0] == pytest.approx([2.75, 2.75, 2.75])  # (1*1 + 1*2 + 2*4) / 4
    assert table[1, :, 0] == pytest.approx([1.5, 1.5, 4.0])  # x0 known: x0=0 -> (1 + 2) / 2
    assert table[2, :, 0] == pytest.approx([3.0, 2.0, 3.0])  # x1 known: x1=0 -> (1 + 2*4) / 3
    assert table[3, :, 0] == pytest.approx([1.0, 2.0, 4.0])  # grand coalition = f
    phi = shapley_from_table(table)
    assert phi.sum(1)[:, 0] == pytest.approx(table[3, :, 0] - table[0, :, 0])
