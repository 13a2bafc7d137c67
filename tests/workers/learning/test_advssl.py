import itertools

import numpy as np
import pytest
import torch

from workers.benchmarks.advssl_probe.benchmark import AdvSslProbeBenchmark
from workers.core import InMemoryRunContext
from workers.methods.advssl.losses import (
    AdvSSLLoss,
    BarlowTwinsLoss,
    adversarial_penalty,
    alignment,
    cross_correlation,
    scaled_normalise,
)
from workers.methods.advssl.plugin import AdvSslMethod
from workers.methods.advssl.train import augment


def test_penalty_is_maximised_by_closed_form_G():
    g = torch.Generator().manual_seed(0)
    C = torch.randn(4, 4, generator=g, dtype=torch.float64)
    eye = torch.eye(4, dtype=torch.float64)
    best = adversarial_penalty(C, C - eye)
    torch.testing.assert_close(best, (C - eye).pow(2).sum())
    for _ in range(20):
        G = torch.randn(4, 4, generator=g, dtype=torch.float64)
        assert adversarial_penalty(C, G) <= best + 1e-12


def test_minibatch_penalty_is_unbiased_and_plugin_is_biased():
    """Exact expectation over every batch of 4 out of a population of 10 pairs."""
    g = torch.Generator().manual_seed(1)
    z1 = scaled_normalise(torch.randn(10, 3, generator=g, dtype=torch.float64))
    z2 = scaled_normalise(z1 + 0.3 * torch.randn(10, 3, generator=g, dtype=torch.float64))
    eye = torch.eye(3, dtype=torch.float64)
    C = cross_correlation(z1, z2)
    G = torch.randn(3, 3, generator=g, dtype=torch.float64)  # any G fixed before the batch is drawn
    adv, plug = [], []
    for batch in itertools.combinations(range(10), 4):
        Cb = cross_correlation(z1[list(batch)], z2[list(batch)])
        adv.append(adversarial_penalty(Cb, G))
        plug.append((Cb - eye).pow(2).sum())
    torch.testing.assert_close(torch.stack(adv).mean(), adversarial_penalty(C, G))
    assert torch.stack(plug).mean() > (C - eye).pow(2).sum() + 1e-3


def test_adv_loss_uses_the_previous_batch_G():
    g = torch.Generator().manual_seed(2)
    loss = AdvSSLLoss(lam=0.5)
    a1, b1, a2, b2 = (torch.randn(8, 5, generator=g, dtype=torch.float64) for _ in range(4))
    loss(a1, b1)
    G1 = cross_correlation(scaled_normalise(a1), scaled_normalise(b1)) - torch.eye(
        5, dtype=torch.float64
    )
    torch.testing.assert_close(loss.G, G1)
    za, zb = scaled_normalise(a2), scaled_normalise(b2)
    expected = alignment(za, zb) + 0.5 * adversarial_penalty(cross_correlation(za, zb), G1)
    torch.testing.assert_close(loss(a2, b2), expected)


def test_barlow_twins_is_near_zero_at_whitened_identical_views():
    x = torch.randn(256, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    x = x - x.mean(0)
    z = x @ torch.linalg.inv(torch.linalg.cholesky(x.T @ x / 256)).T  # decorrelated, unit variance
    # ~(1 - (n-1)/n)^2 per diagonal entry remains from the unbiased std (and its 1e-5 guard)
    assert float(BarlowTwinsLoss()(z, z)) < 1e-4
    assert float(BarlowTwinsLoss()(z, z[:, [1, 0, 2, 3]])) > 1.0


def test_augment_shapes_and_shift():
    x = torch.zeros(1, 64)
    x[0, 27] = 1.0  # pixel (3, 3)
    out = augment(x, 8, torch.Generator().manual_seed(0), max_shift=1, noise=0.0, erase=0.0)
    assert out.shape == (1, 64) and float(out.sum()) == 1.0
    r, c = divmod(int(out.argmax()), 8)
    assert abs(r - 3) <= 1 and abs(c - 3) <= 1


def test_benchmark_end_to_end():
    ctx = InMemoryRunContext(seed=0)
    AdvSslProbeBenchmark(
        {"epochs": 1, "batch_size": 128, "probe_repeats": 2, "bias_batches": 3}
    ).run(ctx, AdvSslMethod())
    assert ctx.summary["grad_bias_plugin"] >= 0 and ctx.summary["grad_bias_adversarial"] >= 0
    assert 10 < ctx.summary["probe_accuracy"] <= 100 and np.isfinite(
        ctx.summary["probe_accuracy_ci95"]
    )
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    with pytest.raises(Exception, match="batch_size"):
        AdvSslProbeBenchmark({"batch_size": 2})


def test_gradient_bias_of_plugin_penalty_is_exact_and_adversarial_is_zero():
    """Exact expectation over every batch of 3 out of 8 pairs at a fixed encoder: the plug-in
    penalty's mean gradient misses the population gradient, Adv-SSL's matches it; the Monte
    Carlo estimate sees the same ordering; a batch holding every pair has no bias."""
    from workers.methods.advssl.bias import penalty_gradient_bias
    from workers.methods.advssl.train import Encoder

    torch.manual_seed(0)
    X = np.random.default_rng(0).random((8, 16))
    model = Encoder(16, 16, 4, 4)
    r = penalty_gradient_bias(model, X, 3, side=4, seed=0, exhaustive=True)
    assert r.plugin > 0.05 and r.adversarial < 1e-5
    mc = penalty_gradient_bias(model, X, 3, n_batches=100, side=4, seed=0)
    assert mc.noise_floor_plugin > 0 and mc.plugin > mc.noise_floor_plugin
    full = penalty_gradient_bias(model, X, 8, n_batches=2, side=4, seed=0)
    assert full.plugin < 1e-4
    with pytest.raises(ValueError, match="batch_size"):
        penalty_gradient_bias(model, X, 1)
