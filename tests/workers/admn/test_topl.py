import itertools

import pytest
import torch

from workers.methods.admn.topl import (
    allowed_mask,
    gumbel_top_l,
    hard_top_l,
    spread_layers,
    uniform_split,
)


@pytest.mark.parametrize("budget", [0, 1, 3, 5, 7])
def test_allocator_never_exceeds_budget_and_respects_caps(budget):
    layers, caps = [4, 3, 2], [3, 3, 1]
    allowed = allowed_mask(layers, caps)
    g = torch.Generator().manual_seed(budget)
    logits = torch.randn(200, sum(layers), generator=g) * 3
    for mask in (
        gumbel_top_l(logits, budget, 0.5, allowed, generator=g),
        hard_top_l(logits, budget, allowed),
    ):
        assert torch.all(mask.sum(-1) == budget)  # exactly the budget, never more
        assert set(mask.unique().tolist()) <= {0.0, 1.0}
        assert torch.all(mask[:, ~allowed] == 0)
        for m, part in enumerate(mask.split(layers, dim=-1)):
            assert torch.all(part.sum(-1) <= caps[m])


def test_budget_above_selectable_layers_is_rejected():
    allowed = allowed_mask([2, 2], [1, 2])
    with pytest.raises(ValueError, match="budget"):
        gumbel_top_l(torch.zeros(1, 4), 4, allowed=allowed)
    with pytest.raises(ValueError, match="max_layers"):
        allowed_mask([2, 2], [3, 2])


def test_hard_top_l_matches_brute_force_subset_search():
    g = torch.Generator().manual_seed(0)
    scores = torch.randn(30, 6, generator=g)
    for row, mask in zip(scores, hard_top_l(scores, 3), strict=True):
        best = max(itertools.combinations(range(6), 3), key=lambda s: float(row[list(s)].sum()))
        assert set(mask.nonzero().flatten().tolist()) == set(best)


def test_without_noise_forward_is_the_plain_top_l():
    logits = torch.randn(10, 8)
    torch.testing.assert_close(gumbel_top_l(logits, 3, noise=False), hard_top_l(logits, 3))


def test_straight_through_gradient_equals_relaxed_top_l_gradient():
    logits = torch.randn(4, 6, requires_grad=True)
    w = torch.randn(4, 6)
    (gumbel_top_l(logits, 2, 0.7, noise=False) * w).sum().backward()
    grad_st = logits.grad.clone()
    # The relaxed top-L written out by hand: two masked softmaxes.
    x = logits.detach().clone().requires_grad_(True)
    p1 = torch.softmax(x / 0.7, -1)
    p2 = torch.softmax((x + torch.log(1 - p1)) / 0.7, -1)
    ((p1 + p2) * w).sum().backward()
    assert grad_st.abs().sum() > 0  # the gradient flows through the hard mask
    torch.testing.assert_close(grad_st, x.grad)


def test_gumbel_sampling_follows_the_logits():
    # With one layer picked, Gumbel top-1 samples layer i with probability softmax(logits)_i.
    logits = torch.tensor([[2.0, 0.0, -1.0]]).expand(20000, -1)
    freq = gumbel_top_l(logits, 1, generator=torch.Generator().manual_seed(1)).mean(0)
    torch.testing.assert_close(freq, torch.softmax(logits[0], -1), atol=0.015, rtol=0)


def test_uniform_split_and_spread():
    assert uniform_split(5, [4, 4]) == [3, 2]
    assert uniform_split(6, [1, 6]) == [1, 5]
    assert spread_layers(2, 4) == [0, 3]
    assert spread_layers(4, 4) == [0, 1, 2, 3]
    assert spread_layers(0, 4) == []
