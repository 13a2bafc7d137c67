import numpy as np
import pytest
import torch
import torch.nn.functional as F

from workers.benchmarks.zen_fewshot.benchmark import ZenFewShotBenchmark, few_shot_split, mean_ci95
from workers.benchmarks.zen_fewshot.data import download_release, load_release_dir
from workers.core import InMemoryRunContext
from workers.core.data import ChecksumMismatch, sha256_file, shared_data_dir
from workers.methods.hypergraph_baselines.models import TrainedNodeClassifier, hgnn_operator
from workers.methods.hypergraph_baselines.plugin import HgnnMethod
from workers.methods.zen.plugin import ZenMethod
from workers.methods.zen.zen import ZEN, simplex_grid, zen_logits, zen_propagate

# 7 nodes; hyperedge ids not contiguous (like the release); edge 9 is a singleton, node 6 isolated.
EDGES = {3: [0, 1, 2], 5: [1, 2, 3, 4], 7: [0, 4], 8: [2, 5, 4], 9: [5]}
N = 7


def incidence() -> torch.Tensor:
    pairs = [(v, e) for e, nodes in EDGES.items() for v in nodes]
    return torch.tensor(pairs, dtype=torch.long).T


def dense_reference(X: torch.Tensor, remove_rsi: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """ZEN's operators written as explicit dense matrices."""
    edges = list(EDGES)
    Hd = torch.zeros(N, len(edges), dtype=torch.float64)
    for j, e in enumerate(edges):
        Hd[EDGES[e], j] = 1.0
    dv, de = Hd.sum(1), Hd.sum(0)
    inv = lambda x, p: torch.where(x > 0, x.clamp(min=1e-12) ** -p, torch.zeros_like(x))  # noqa: E731
    D, D1, De1 = (
        torch.diag(inv(dv, 0.5)),
        torch.diag(inv(dv - 1, 1.0)),
        torch.diag(inv(de - 1, 1.0)),
    )
    B = Hd @ De1 @ Hd.T
    A0 = B - torch.diag(torch.diag(B)) if remove_rsi else B
    # RSI_2 by its definition: walks v -> e -> u -> e -> v with u != v
    rsi2 = torch.zeros(N, dtype=torch.float64)
    for j, e in enumerate(edges):
        for v in EDGES[e]:
            rsi2[v] += sum(De1[j, j] ** 2 * D1[u, u] for u in EDGES[e] if u != v)
    RSI2 = torch.diag(rsi2) if remove_rsi else torch.zeros(N, N, dtype=torch.float64)
    AX = D @ A0 @ D @ X
    AAX = D @ (A0 @ D1 @ A0 - RSI2) @ D @ X
    return AX, AAX


def walk_reference(X: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Brute force over walks: first order v -e- u (u != v); second order v -e- u -e'- w
    with u != v, w != u, and not returning to v through the same hyperedge."""
    deg = {v: sum(v in nodes for nodes in EDGES.values()) for v in range(N)}
    w_e = {e: 1.0 / (len(n) - 1) if len(n) > 1 else 0.0 for e, n in EDGES.items()}
    w_v = {v: 1.0 / (d - 1) if d > 1 else 0.0 for v, d in deg.items()}
    s = {v: deg[v] ** -0.5 if deg[v] else 0.0 for v in range(N)}
    AX = torch.zeros_like(X)
    AAX = torch.zeros_like(X)
    for v in range(N):
        for e, nodes in EDGES.items():
            if v not in nodes:
                continue
            for u in nodes:
                if u == v:
                    continue
                AX[v] += s[v] * w_e[e] * s[u] * X[u]
                for e2, nodes2 in EDGES.items():
                    if u not in nodes2:
                        continue
                    for w in nodes2:
                        if w == u or (e2 == e and w == v):
                            continue
                        AAX[v] += s[v] * w_e[e] * w_v[u] * w_e[e2] * s[w] * X[w]
    return AX, AAX


def test_propagation_equals_dense_matrices_and_walk_enumeration():
    X = torch.randn(N, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    prop = zen_propagate(incidence(), X)
    AX, AAX = dense_reference(X, remove_rsi=True)
    torch.testing.assert_close(prop.AX, AX)
    torch.testing.assert_close(prop.AAX, AAX)
    AXw, AAXw = walk_reference(X)
    torch.testing.assert_close(prop.AX, AXw)
    torch.testing.assert_close(prop.AAX, AAXw)
    assert prop.AX[6].abs().sum() == 0  # the isolated node receives nothing


def test_ablation_keeps_the_self_information():
    X = torch.randn(N, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    prop = zen_propagate(incidence(), X, remove_rsi=False)
    AX, AAX = dense_reference(X, remove_rsi=False)
    torch.testing.assert_close(prop.AX, AX)
    torch.testing.assert_close(prop.AAX, AAX)
    assert not torch.allclose(prop.AX, zen_propagate(incidence(), X).AX)


def test_logits_are_cosines_to_class_prototypes_and_grid_search_is_exhaustive():
    g = torch.Generator().manual_seed(2)
    X = torch.randn(N, 4, generator=g)
    y = torch.tensor([1, 1, 2, 2, 3, 3, 1])  # labels need not start at 0
    train, val = torch.tensor([0, 2, 4]), torch.tensor([1, 3, 5])
    model = ZEN(grid_resolution=4).fit(incidence(), X, y, train, val)
    prop = zen_propagate(incidence(), X)
    y_enc = y - 1
    accs = {}
    for a in simplex_grid(4):
        Z = F.normalize(a[0] * X + a[1] * prop.AX + a[2] * prop.AAX, dim=1)
        W = torch.stack([F.normalize(Z[train][y_enc[train] == c].sum(0), dim=0) for c in range(3)])
        torch.testing.assert_close(zen_logits(X, prop, y_enc, train, a, 3), Z @ W.T)
        accs[a] = ((Z @ W.T)[val].argmax(1) == y_enc[val]).float().mean().item()
    assert len(accs) == (4 + 2) * (4 + 1) // 2
    assert accs[model.alphas_] == max(accs.values())
    assert set(model.predict().tolist()) <= {1, 2, 3}


def test_bad_inputs_raise_clear_errors():
    X = torch.randn(N, 2)
    with pytest.raises(ValueError, match="H must"):
        zen_propagate(torch.zeros(3, 4, dtype=torch.long), X)
    with pytest.raises(ValueError, match="node index"):
        zen_propagate(torch.tensor([[9], [0]]), X)
    with pytest.raises(ValueError, match="val_idx"):
        ZEN().fit(incidence(), X, torch.zeros(N, dtype=torch.long), [0])
    with pytest.raises(ValueError, match="simplex"):
        ZEN(alphas=(0.5, 0.6, 0.0)).fit(incidence(), X, torch.zeros(N, dtype=torch.long), [0])


def test_hgnn_operator_matches_dense_formula_and_baselines_fit():
    H = incidence()
    edges = list(EDGES)
    Hd = torch.zeros(N, len(edges))
    for j, e in enumerate(edges):
        Hd[EDGES[e], j] = 1.0
    dv = Hd.sum(1)
    Dv = torch.diag(torch.where(dv > 0, dv.clamp(min=1) ** -0.5, torch.zeros_like(dv)))
    G = Dv @ Hd @ torch.diag(1 / Hd.sum(0)) @ Hd.T @ Dv
    torch.testing.assert_close(hgnn_operator(H, N).to_dense(), G)
    X, y = torch.randn(N, 3), torch.tensor([0, 0, 1, 1, 0, 1, 0])
    for arch in ("hgnn", "mlp"):
        pred = TrainedNodeClassifier(arch, epochs=5).fit(H, X, y, [0, 2], [1, 3]).predict([4, 5])
        assert pred.shape == (2,)


def test_few_shot_split_and_ci():
    y = torch.tensor([0] * 10 + [1] * 3)
    tr, va, te = few_shot_split(y, 2, np.random.default_rng(0))
    assert len(tr) == 4 and len(va) == 3 and len(te) == 6
    assert not set(tr) & set(va) and sorted(set(tr) | set(va) | set(te)) == list(range(13))
    m, h = mean_ci95([1.0, 2.0, 3.0])
    assert m == 2.0 and h == pytest.approx(4.302653 * 1.0 / np.sqrt(3), rel=1e-5)


def _write_release(folder, n=5):
    folder.mkdir(parents=True)
    torch.save(
        torch.tensor([[0, 1, 1, 2, 3, 4, 0], [5, 5, 6, 6, 6, 7, 5]]), folder / "H.pt"
    )  # one duplicate
    torch.save(torch.randn(n, 3), folder / "X.pt")
    torch.save(torch.tensor([0, 1, 0, 1, 0]), folder / "Y.pt")


def test_release_loader_and_file_url_download(tmp_path):
    src = tmp_path / "release" / "toy"
    _write_release(src)
    data = load_release_dir(src)
    assert data.H.shape == (2, 6) and data.n_nodes == 5  # the duplicate incidence is dropped
    pins = {f: sha256_file(src / f"{f}.pt") for f in "HXY"}
    folder = download_release(
        "toy", tmp_path / "cache", pins, base_url=(tmp_path / "release").as_uri()
    )
    assert load_release_dir(folder).sha256 == data.sha256
    with pytest.raises(ChecksumMismatch):
        download_release(
            "toy", tmp_path / "cache2", {**pins, "X": "0" * 64}, (tmp_path / "release").as_uri()
        )
    with pytest.raises(ValueError, match="SHA-256"):
        download_release(
            "toy", tmp_path / "cache3", {"H": pins["H"]}, (tmp_path / "release").as_uri()
        )
    bad = tmp_path / "bad"
    bad.mkdir()
    with pytest.raises(FileNotFoundError, match="H.pt"):
        load_release_dir(bad)


def test_benchmark_end_to_end_on_zoo():
    if shared_data_dir() is None or not (shared_data_dir() / "zen" / "zoo").is_dir():
        pytest.skip("shared ZEN data not present")
    ctx = InMemoryRunContext(seed=0)
    ZenFewShotBenchmark({"dataset": "zoo", "splits": 2, "baseline_epochs": 10}).run(
        ctx, ZenMethod()
    )
    assert "accuracy" in ctx.summary and 50 < ctx.summary["accuracy"] <= 100
    assert ctx.summary["speedup_vs_fastest_trained"] > 0
    assert ctx.progress_updates[-1][0] == ctx.progress_updates[-1][1]
    assert ctx.datasets["zoo"] and len(ctx.series("accuracy")) == 2
    ctx2 = InMemoryRunContext(seed=0)
    ZenFewShotBenchmark({"dataset": "zoo", "splits": 2, "measure_speedup": False}).run(
        ctx2, HgnnMethod({"epochs": 10})
    )
    assert "speedup_vs_fastest_trained" not in ctx2.summary and "accuracy" in ctx2.summary


def test_config_rejects_bad_values():
    with pytest.raises(Exception, match="k"):
        ZenFewShotBenchmark({"k": 0})
    with pytest.raises(Exception, match="sha256_H"):
        ZenFewShotBenchmark({"sha256_H": "xyz"})


def test_pinned_release_hashes_are_well_formed_and_match_the_shared_copies():
    import re

    from workers.benchmarks.zen_fewshot.data import KNOWN_SHA256, PAPER_DATASETS

    for name, pins in KNOWN_SHA256.items():
        assert name in PAPER_DATASETS and set(pins) <= set("HXY")
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in pins.values())
    shared = shared_data_dir()
    if shared is None or not (shared / "zen" / "zoo").is_dir():
        pytest.skip("shared ZEN data not present")
    for name in ("zoo", "senate-committees"):
        for f in "HXY":
            assert sha256_file(shared / "zen" / name / f"{f}.pt") == KNOWN_SHA256[name][f]


def _git_hash_object(path) -> str:
    """The blob id computed by git itself (independent of workers.core.data.git_blob_id)."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    return subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_download_verified_by_git_blob_id_where_no_sha256_is_pinned(tmp_path):
    from workers.core.data import git_blob_id

    src = tmp_path / "release" / "toy"
    _write_release(src)
    blobs = {f: _git_hash_object(src / f"{f}.pt") for f in "HXY"}
    assert all(git_blob_id(src / f"{f}.pt") == blobs[f] for f in "HXY")
    base = (tmp_path / "release").as_uri()
    sha_h = {"H": sha256_file(src / "H.pt")}  # one file by SHA-256, the others by blob id
    folder = download_release("toy", tmp_path / "cache", sha_h, base, git_blob=blobs)
    assert load_release_dir(folder).sha256 == load_release_dir(src).sha256
    with pytest.raises(ChecksumMismatch, match="git blob"):
        download_release("toy", tmp_path / "c2", {}, base, git_blob={**blobs, "Y": "0" * 40})
    with pytest.raises(ValueError, match="git blob id pinned for Y.pt"):
        download_release(
            "toy", tmp_path / "c3", {}, base, git_blob={"H": blobs["H"], "X": blobs["X"]}
        )


def test_every_release_file_is_pinned_at_a_fixed_commit():
    import re

    from workers.benchmarks.zen_fewshot.data import (
        KNOWN_GIT_BLOB,
        PAPER_DATASETS,
        RELEASE_BASE_URL,
        RELEASE_COMMIT,
    )

    assert re.fullmatch(r"[0-9a-f]{40}", RELEASE_COMMIT) and RELEASE_COMMIT in RELEASE_BASE_URL
    assert set(KNOWN_GIT_BLOB) == set(PAPER_DATASETS)
    for pins in KNOWN_GIT_BLOB.values():
        assert set(pins) == set("HXY") and all(
            re.fullmatch(r"[0-9a-f]{40}", h) for h in pins.values()
        )
    shared = shared_data_dir()
    if shared is None or not (shared / "zen" / "zoo").is_dir():
        pytest.skip("shared ZEN data not present")
    for name in ("zoo", "senate-committees"):  # the real release files agree with both pins
        for f in "HXY":
            assert _git_hash_object(shared / "zen" / name / f"{f}.pt") == KNOWN_GIT_BLOB[name][f]
