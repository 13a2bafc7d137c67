import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.datasets import load_iris, make_friedman1
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from workers.benchmarks.oblique_trees.benchmark import (
    ObliqueClassificationBenchmark,
    ObliqueRegressionBenchmark,
)
from workers.core import InMemoryRunContext
from workers.methods.oblique_baselines.plugin import CartMethod, SoftTreeMethod
from workers.methods.oblique_baselines.soft_tree import SoftDecisionTreeClassifier, SoftTree
from workers.methods.oblique_tree.estimators import (
    ReluArgminTreeClassifier,
    ReluArgminTreeRegressor,
)
from workers.methods.oblique_tree.fused import bit_reversed_order, fused_soft_objective
from workers.methods.oblique_tree.plugin import ReluArgminMethod
from workers.methods.oblique_tree.reluargmin import (
    ReluArgminTree,
    soft_objective,
    soft_objective_reference,
)
from workers.methods.oblique_tree.structure import leaf_paths, traverse

FAST = dict(n_scales=2, epochs=3, random_state=0)


def random_tree(depth: int, p: int, seed: int) -> tuple[ReluArgminTree, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    tree = ReluArgminTree(depth, p, 2)
    with torch.no_grad():
        tree.A.copy_(torch.randn(tree.A.shape, generator=g))
        tree.b.copy_(torch.randn(tree.b.shape, generator=g) * 0.5)
        tree.c.copy_(torch.randn(tree.c.shape, generator=g))
    return tree, torch.randn(500, p, generator=g)


@pytest.mark.parametrize("depth", [1, 2, 3, 5, 12])
def test_argmin_of_violations_equals_tree_traversal(depth):
    tree, X = random_tree(depth, 4, depth)
    leaf = traverse(tree.A.detach(), tree.b.detach(), X, depth)
    assert torch.equal(tree.violations(X).argmin(1), leaf)  # the reformulation's argmin
    assert torch.equal(tree.leaf_index(X), leaf)
    torch.testing.assert_close(tree(X), tree.c[leaf])
    V = tree.violations(X)
    assert torch.all(V[torch.arange(len(X)), leaf] == 0)  # zero on the reached leaf ...
    others = V.clone()
    others[torch.arange(len(X)), leaf] = float("inf")
    assert torch.all(others > 0)  # ... and positive elsewhere


def test_violations_match_the_definition_leaf_by_leaf():
    depth = 3
    tree, X = random_tree(depth, 3, 7)
    anc, right = leaf_paths(depth)
    A, b = tree.A.detach(), tree.b.detach()
    for leaf in range(2**depth):
        expected = torch.zeros(len(X))
        for t, r in zip(anc[leaf].tolist(), right[leaf].tolist(), strict=True):
            margin = X @ A[t] - b[t]
            expected += torch.relu(-margin) if r else torch.relu(margin)
        torch.testing.assert_close(tree.violations(X)[:, leaf], expected)
    for d in (3, 7):  # the level-by-level accumulation equals the literal sum over ancestors
        deep, Xd = random_tree(d, 3, d)
        torch.testing.assert_close(deep.violations(Xd), deep.violations_by_path(Xd))


def test_softmin_tends_to_the_hard_tree_as_scale_grows():
    tree, X = random_tree(3, 4, 3)
    hard = torch.nn.functional.one_hot(tree.leaf_index(X), 8).float()
    gap = [(tree.leaf_weights(X, s, prune=False) - hard).abs().mean().item() for s in (1, 10, 1000)]
    assert gap[0] > gap[1] > gap[2] and gap[2] < 0.01
    y = torch.randint(0, 2, (len(X),))
    assert torch.isfinite(soft_objective(tree, X, y, 10.0, "classification"))


def test_bit_reversed_order_is_a_permutation_with_children_at_j_and_j_plus_2_to_the_d():
    nodes, leaves = bit_reversed_order(3)
    assert sorted(nodes.tolist()) == list(range(7)) and sorted(leaves.tolist()) == list(range(8))
    for d in range(2):  # node at level d, position j: children at positions j and j + 2^d
        for j in range(2**d):
            heap = nodes[2**d - 1 + j].item()
            kids = nodes[2 ** (d + 1) - 1 + j].item(), nodes[2 ** (d + 1) - 1 + j + 2**d].item()
            assert kids == (2 * heap + 1, 2 * heap + 2)


def _objective_and_grads(fn, tree, X, y, scale, task):
    tree.zero_grad()
    obj = fn(tree, X, y, scale, task)
    obj.backward()
    return [obj.detach()] + [p.grad.clone() for p in (tree.A, tree.b, tree.c)]


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("depth,n,scale", [(2, 50, 3.0), (7, 300, 20.0), (12, 100, 10.0)])
def test_fused_objective_and_gradients_equal_the_autograd_reference(task, depth, n, scale):
    g = torch.Generator().manual_seed(depth)
    k = 3 if task == "classification" else 2
    tree = ReluArgminTree(depth, 5, k)
    with torch.no_grad():
        tree.c.normal_(generator=g)
    X = torch.rand(n, 5, generator=g)
    y = (
        torch.randint(0, k, (n,), generator=g)
        if task == "classification"
        else torch.randn(n, k, generator=g)
    )
    fused = _objective_and_grads(soft_objective, tree, X, y, scale, task)
    ref = _objective_and_grads(soft_objective_reference, tree, X, y, scale, task)
    for a, b in zip(fused, ref, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    assert fused[1].abs().sum() > 0 and fused[3].abs().sum() > 0  # gradients flow to A and c
    # several row chunks (the last one shorter) give the same value
    C = tree.c if task == "regression" else -torch.log_softmax(tree.c, dim=1)
    chunked = fused_soft_objective(
        X, tree.A, tree.b, C, y, scale, prune=depth > 4,
        regression=task == "regression", chunk_entries=7 * 2**depth,
    )  # fmt: skip
    torch.testing.assert_close(chunked.detach(), fused[0])


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("depth,prune", [(1, False), (3, False), (5, True)])
def test_fused_gradient_passes_gradcheck_in_float64(depth, prune, regression):
    g = torch.Generator().manual_seed(depth)
    n, p, k = 12, 3, 2
    X = torch.rand(n, p, generator=g, dtype=torch.float64, requires_grad=True)
    A = torch.randn(2**depth - 1, p, generator=g, dtype=torch.float64, requires_grad=True)
    b = (0.5 * torch.randn(2**depth - 1, generator=g, dtype=torch.float64)).requires_grad_()
    C = torch.randn(2**depth, k, generator=g, dtype=torch.float64, requires_grad=True)
    y = torch.randn(n, k, generator=g, dtype=torch.float64) if regression else torch.arange(n) % k

    def f(X, A, b, C):
        return fused_soft_objective(
            X, A, b, C, y, 2.0, prune=prune, regression=regression, chunk_entries=5 * 2**depth
        )

    assert torch.autograd.gradcheck(f, (X, A, b, C))


def test_cart_warm_start_reproduces_cart_and_training_never_does_worse():
    X, y = load_iris(return_X_y=True)
    cart = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    frozen = ReluArgminTreeClassifier(max_depth=3, n_scales=1, epochs=0, random_state=0).fit(X, y)
    assert np.array_equal(
        frozen.predict(X), DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y).predict(X)
    )
    trained = ReluArgminTreeClassifier(max_depth=2, **FAST).fit(X, y)
    assert trained.score(X, y) >= cart.score(X, y)
    Xr, yr = make_friedman1(n_samples=200, random_state=0)
    cart_r = DecisionTreeRegressor(max_depth=2, random_state=0).fit(Xr, yr)
    reg = ReluArgminTreeRegressor(max_depth=2, **FAST).fit(Xr, yr)
    assert reg.score(Xr, yr) >= cart_r.score(Xr, yr) - 1e-6
    assert reg.apply(Xr).max() < 4


def test_scikit_learn_conventions():
    est = ReluArgminTreeClassifier(max_depth=2, **FAST)
    assert clone(est).get_params() == est.get_params()
    with pytest.raises(ValueError, match="max_depth"):
        ReluArgminTreeClassifier(max_depth=0).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="features"):
        ReluArgminTreeClassifier(max_depth=1, **FAST).fit([[0.0], [1.0]], [0, 1]).predict(
            [[0.0, 1.0]]
        )
    X, y = load_iris(return_X_y=True)
    proba = est.fit(X, y.astype(str)).predict_proba(X)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(1), 1)
    assert set(est.predict(X)) <= {"0", "1", "2"}


@pytest.mark.slow
def test_check_estimator():
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(ReluArgminTreeClassifier(max_depth=2, n_scales=1, epochs=2, random_state=0))
    check_estimator(ReluArgminTreeRegressor(max_depth=2, n_scales=1, epochs=2, random_state=0))
    check_estimator(SoftDecisionTreeClassifier(max_depth=2, random_state=0))


def test_soft_tree_leaf_weights_are_a_distribution():
    tree = SoftTree(3, 4, 2)
    w = tree.log_leaf_weights(torch.randn(20, 4)).exp()
    torch.testing.assert_close(w.sum(1), torch.ones(20))
    X, y = load_iris(return_X_y=True)
    assert (
        SoftDecisionTreeClassifier(max_depth=2, epochs=50, random_state=0).fit(X, y).score(X, y)
        > 0.8
    )


def test_benchmarks_end_to_end():
    ctx = InMemoryRunContext(seed=0)
    ObliqueClassificationBenchmark({"dataset": "iris", "depths": [2], "repeats": 2}).run(
        ctx, ReluArgminMethod({"n_scales": 2, "epochs": 3})
    )
    assert "accuracy" in ctx.summary and "accuracy_depth2" in ctx.summary
    assert ctx.progress_updates[-1][:2] == (2.0, 2.0) and "score_vs_depth" in ctx.artifacts
    ctx = InMemoryRunContext(seed=1)
    ObliqueRegressionBenchmark(
        {"dataset": "generated", "n_samples": 200, "depths": [1, 2], "repeats": 2}
    ).run(ctx, CartMethod())
    assert "r2" in ctx.summary and len(ctx.series("r2")) == 2
    ctx = InMemoryRunContext(seed=0)
    ObliqueClassificationBenchmark(
        {"dataset": "generated", "n_samples": 150, "depths": [2], "repeats": 2}
    ).run(ctx, SoftTreeMethod({"epochs": 5}))
    assert "accuracy" in ctx.summary
    with pytest.raises(Exception, match="depth"):
        ObliqueClassificationBenchmark({"depths": [13]})
    with pytest.raises(Exception, match="dataset"):
        ObliqueRegressionBenchmark({"dataset": "iris"})
