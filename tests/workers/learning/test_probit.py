import math

import pytest
import torch
import torch.nn.functional as F
from sklearn.datasets import make_classification
from torch.special import ndtr

from workers.benchmarks.probit_predictives.benchmark import ProbitPredictiveBenchmark
from workers.benchmarks.probit_predictives.metrics import ece, mean_kl
from workers.core import InMemoryRunContext
from workers.methods.probit.heads import GaussianLogitClassifier, link_fisher
from workers.methods.probit.losses import GaussianLogitNLLLoss, NormedLinkNLLLoss, log_normed_link
from workers.methods.probit.plugin import NormCdfMethod, SoftmaxMcMethod
from workers.methods.probit.predictives import (
    dirichlet_moment_match,
    dirichlet_mutual_information,
    normcdf_mean,
    normcdf_predictive,
    sample_link_probs,
    second_moment,
    sigmoid_mean,
    sigmoid_predictive,
)

MU = torch.tensor([[1.5, -0.3, 0.2, -2.0], [0.0, 3.0, -1.0, 0.5]], dtype=torch.float64)
VAR = torch.tensor([[0.5, 2.0, 0.1, 4.0], [1.0, 0.3, 2.5, 0.0]], dtype=torch.float64)


def mc_samples(n: int = 1_000_000, seed: int = 0) -> torch.Tensor:
    eps = torch.randn(
        (n,) + tuple(MU.shape), generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )
    return MU + VAR.sqrt() * eps


def test_normcdf_predictive_matches_a_million_sample_monte_carlo_to_3_decimals():
    g = ndtr(mc_samples())
    mc_mean = g.mean(0)
    assert torch.allclose(normcdf_mean(MU, VAR), mc_mean, atol=1e-3)
    mc_pred = mc_mean / mc_mean.sum(1, keepdim=True)  # the predictive: normalised expectations
    assert torch.allclose(normcdf_predictive(MU, VAR), mc_pred, atol=1e-3)
    assert torch.allclose(normcdf_predictive(MU, VAR).sum(1), torch.ones(2, dtype=torch.float64))
    assert torch.allclose(second_moment(MU, VAR, "normcdf"), (g**2).mean(0), atol=1e-3)


def test_sigmoid_probit_approximation_is_close_and_better_than_plugging_in_the_mean():
    g = torch.sigmoid(mc_samples(200_000))
    mc = g.mean(0)
    err = (sigmoid_mean(MU, VAR) - mc).abs().max()
    assert err < 0.02 and err < (torch.sigmoid(MU) - mc).abs().max()
    assert (second_moment(MU, VAR, "sigmoid") - (g**2).mean(0)).abs().max() < 0.02
    pred = sigmoid_predictive(MU, VAR)
    assert torch.allclose(pred, sigmoid_mean(MU, VAR) / sigmoid_mean(MU, VAR).sum(1, keepdim=True))


def test_dirichlet_moment_match():
    alpha = dirichlet_moment_match(MU, VAR, "normcdf")
    assert torch.all(alpha > 0)
    assert torch.allclose(alpha / alpha.sum(1, keepdim=True), normcdf_predictive(MU, VAR))
    # more logit variance -> a flatter Dirichlet (smaller precision) and more epistemic uncertainty
    small, large = dirichlet_moment_match(MU, VAR * 0.1), dirichlet_moment_match(MU, VAR * 10)
    assert torch.all(small.sum(1) > large.sum(1))
    assert torch.all(dirichlet_mutual_information(large) > dirichlet_mutual_information(small))


def test_monte_carlo_link_probs_and_input_checks():
    p = sample_link_probs(MU, VAR, 4000, "normcdf", torch.Generator().manual_seed(0), chunk=300)
    brute = ndtr(mc_samples(4000, 5))
    brute = (brute / brute.sum(-1, keepdim=True)).mean(0)
    assert torch.allclose(p, brute, atol=0.03) and torch.allclose(
        p.sum(1), torch.ones(2, dtype=torch.float64)
    )
    with pytest.raises(ValueError, match="var"):
        normcdf_predictive(MU, -VAR)
    with pytest.raises(ValueError, match="link"):
        sample_link_probs(MU, VAR, 10, "tanh")


def test_losses_match_their_definitions():
    f = torch.randn(6, 4, dtype=torch.float64)
    y = torch.tensor([0, 1, 2, 3, 0, 1])
    torch.testing.assert_close(NormedLinkNLLLoss("softmax")(f, y), F.cross_entropy(f, y))
    q = ndtr(f)
    torch.testing.assert_close(
        NormedLinkNLLLoss("normcdf")(f, y), -torch.log(q[range(6), y] / q.sum(1)).mean()
    )
    s = torch.sigmoid(f)
    torch.testing.assert_close(
        NormedLinkNLLLoss("sigmoid")(f, y), -torch.log(s[range(6), y] / s.sum(1)).mean()
    )
    zero = torch.zeros_like(f)
    for link in ("normcdf", "sigmoid"):
        torch.testing.assert_close(
            GaussianLogitNLLLoss(link)(f, zero, y), NormedLinkNLLLoss(link)(f, y)
        )
    var = torch.rand_like(f)
    expected = -torch.log(normcdf_predictive(f, var)[range(6), y]).mean()
    torch.testing.assert_close(GaussianLogitNLLLoss("normcdf")(f, var, y), expected)


@pytest.mark.parametrize("link", ["softmax", "normcdf", "sigmoid"])
def test_link_fisher_equals_expected_outer_product_of_score(link):
    f = torch.randn(3, 4, dtype=torch.float64)
    Fi = link_fisher(f, link)
    for i in range(3):
        jac = torch.autograd.functional.jacobian(
            lambda x: log_normed_link(x.unsqueeze(0), link)[0], f[i]
        )  # (y, c)
        p = log_normed_link(f[i : i + 1], link).exp()[0]
        expected = torch.einsum("y,yc,yd->cd", p, jac, jac)
        torch.testing.assert_close(Fi[i], expected)
    if link == "softmax":
        p = f.softmax(1)
        torch.testing.assert_close(Fi, torch.diag_embed(p) - p.unsqueeze(2) * p.unsqueeze(1))


def test_last_layer_laplace_variance_equals_explicit_jacobian_pushforward():
    X, y = make_classification(
        n_samples=120, n_features=5, n_informative=3, n_classes=3, random_state=0
    )
    model = GaussianLogitClassifier(
        link="normcdf", source="laplace", hidden=8, epochs=3, prior_precision=2.0
    ).fit(X, y)
    Xt = model._tensor(X[:7])
    with torch.no_grad():
        phi_train = model._phi(model._tensor(X)).double()
        W = torch.cat([model.head_.weight, model.head_.bias.unsqueeze(1)], 1).double()
    C, K = W.shape

    def logits(theta, phi):
        return phi @ theta.reshape(C, K).T

    theta = W.reshape(-1)
    H = 2.0 * torch.eye(C * K, dtype=torch.float64)
    Fi = link_fisher(logits(theta, phi_train), "normcdf")
    for i in range(len(phi_train)):
        J = torch.autograd.functional.jacobian(
            lambda t, i=i: logits(t, phi_train[i : i + 1])[0], theta
        )  # (C, P)
        H += J.T @ Fi[i] @ J
    Sigma = torch.linalg.inv(H)
    with torch.no_grad():
        phi_test = model._phi(Xt).double()
    expected = torch.stack(
        [
            torch.diagonal(J @ Sigma @ J.T)
            for J in (
                torch.autograd.functional.jacobian(
                    lambda t, i=i: logits(t, phi_test[i : i + 1])[0], theta
                )
                for i in range(7)
            )
        ]
    )
    mu, var = model.logit_moments(X[:7])
    torch.testing.assert_close(var, expected, rtol=1e-6, atol=1e-8)
    torch.testing.assert_close(mu, logits(theta, phi_test), rtol=1e-5, atol=1e-5)


def test_heads_give_sane_moments():
    X, y = make_classification(
        n_samples=150, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    for source in ("heteroscedastic", "sngp"):
        mu, var = (
            GaussianLogitClassifier(link="sigmoid", source=source, hidden=8, epochs=2)
            .fit(X, y)
            .logit_moments(X)
        )
        assert mu.shape == var.shape == (150, 3) and torch.all(var >= 0)
    with pytest.raises(ValueError, match="source"):
        GaussianLogitClassifier(source="mcdropout").fit(X, y)


def test_metrics():
    p = torch.tensor([[0.9, 0.1], [0.6, 0.4]], dtype=torch.float64)
    y = torch.tensor([0, 1])
    # bins: 0.9 (correct) -> |0.9-1|, 0.6 (wrong) -> |0.6-0|; each half the mass
    assert ece(p, y) == pytest.approx(0.5 * 0.1 + 0.5 * 0.6)
    assert mean_kl(p, p) == pytest.approx(0.0, abs=1e-12)


def test_benchmark_end_to_end():
    ctx = InMemoryRunContext(seed=0)
    cfg = {
        "dataset": "generated",
        "n_samples": 300,
        "epochs": 2,
        "hidden": 8,
        "reference_samples": 500,
    }
    ProbitPredictiveBenchmark(cfg).run(ctx, NormCdfMethod())
    assert {"nll", "accuracy", "ece", "kl_to_reference", "predictive_ms"} <= set(ctx.summary)
    assert ctx.progress_updates[-1][:2] == (4.0, 4.0)
    ctx = InMemoryRunContext(seed=0)
    ProbitPredictiveBenchmark({**cfg, "source": "sngp"}).run(
        ctx, SoftmaxMcMethod({"n_samples": 100})
    )
    assert [s for s, _ in ctx.series("kl_to_reference")] == [10, 100]
    kl = dict(ctx.series("kl_to_reference"))
    assert math.isfinite(kl[10]) and ctx.summary["nll"] > 0
