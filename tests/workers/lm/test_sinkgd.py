import math

import pytest
import torch
from scipy.linalg import polar

from workers.methods.sinkgd.optim import (
    SWAN,
    SinkGD,
    matrix_param_groups,
    optimizer_state_bytes,
    sr_sinkhorn,
    swan_normalize,
)
from workers.models.tiny_llama import build_llama, tiny_test_config


@pytest.mark.parametrize("shape", [(8, 20), (20, 8), (13, 13)])
def test_sr_sinkhorn_column_norms_exact_rows_converge(shape):
    m, n = shape
    G = torch.randn(m, n, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    for L in (1, 5):
        X = sr_sinkhorn(G, L)
        # the last operation normalises columns, so they hold exactly after any number of rounds
        assert torch.allclose(
            X.norm(dim=0), torch.full((n,), math.sqrt(m), dtype=X.dtype), atol=1e-10
        )
        assert X.norm() == pytest.approx(math.sqrt(m * n))
    errors = [
        (sr_sinkhorn(G, L).norm(dim=1) - math.sqrt(n)).abs().max().item() for L in (1, 5, 200)
    ]
    assert (
        errors[2] < 1e-6 and errors[2] <= errors[1] <= errors[0]
    )  # rows converge to sqrt(n) as L grows


def test_sr_sinkhorn_is_the_sinkhorn_scaling_of_squared_entries():
    G = torch.randn(6, 9, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    X = sr_sinkhorn(G, 300)
    P = X**2  # equals diag(u) G^2 diag(v) with row sums n and column sums m
    scale = P / G**2
    assert torch.allclose(
        scale / scale[0:1, :] / (scale[:, 0:1] / scale[0, 0]), torch.ones_like(P), atol=1e-8
    )
    assert torch.allclose(P.sum(1), torch.full((6,), 9.0, dtype=P.dtype), atol=1e-8)


def test_swan_is_rescaled_polar_factor_of_standardised_rows():
    G = torch.randn(5, 12, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    out = swan_normalize(G)
    Gt = (G - G.mean(1, keepdim=True)) / G.std(1, unbiased=False, keepdim=True)
    U, _ = polar(
        Gt.T.numpy()
    )  # Gt^T = U P with orthonormal columns, so Gt = P U^T: U^T is (G G^T)^{-1/2} G
    expected = torch.from_numpy(U.T) * math.sqrt(12)
    assert torch.allclose(out, expected, atol=1e-8)
    # both SWAN constraints hold at once (m <= n): rows of norm sqrt(n), all singular values equal
    assert torch.allclose(
        out.norm(dim=1), torch.full((5,), math.sqrt(12), dtype=out.dtype), atol=1e-8
    )
    sv = torch.linalg.svdvals(out)
    assert torch.allclose(sv, sv[0].expand_as(sv), atol=1e-8)


def test_sinkgd_step_is_stateless_and_exact():
    W = torch.nn.Parameter(torch.randn(4, 7))
    W0 = W.detach().clone()
    W.grad = torch.randn(4, 7)
    opt = SinkGD([W], lr=0.1, num_iters=5)
    opt.step()
    assert torch.allclose(W.detach(), W0 - 0.1 * sr_sinkhorn(W.grad, 5), atol=1e-6)
    assert optimizer_state_bytes(opt) == 0
    with pytest.raises(ValueError, match="matrices only"):
        SinkGD([torch.nn.Parameter(torch.randn(3))], lr=0.1)


def test_adam_groups_match_torch_adam():
    torch.manual_seed(0)
    a = torch.nn.Parameter(torch.randn(5))
    b = torch.nn.Parameter(a.detach().clone())
    ours = SWAN([{"params": [a], "adam": True}], lr=0.01)
    ref = torch.optim.Adam([b], lr=0.01)
    for _ in range(3):
        g = torch.randn(5)
        a.grad, b.grad = g.clone(), g.clone()
        ours.step()
        ref.step()
    assert torch.allclose(a, b, atol=1e-7)


def test_param_groups_send_embeddings_head_and_norms_to_adam():
    model = build_llama(tiny_test_config(num_layers=1), 300, bos_id=1, eos_id=2, pad_id=0)
    matrices, others = matrix_param_groups(model, 1e-3, 1e-2)
    emb, head = model.get_input_embeddings().weight, model.get_output_embeddings().weight
    assert all(p.ndim == 2 for p in matrices["params"])
    assert {id(emb), id(head)} <= {id(p) for p in others["params"]}
    assert len(matrices["params"]) == 7  # q, k, v, o, gate, up, down
    opt = SinkGD([matrices, others])
    loss = model(input_ids=torch.randint(0, 300, (2, 8)), labels=torch.randint(0, 300, (2, 8))).loss
    loss.backward()
    opt.step()
    # only the Adam group keeps state: two moments of embedding, head and norm weights
    assert optimizer_state_bytes(opt) == sum(2 * p.numel() * 4 for p in others["params"])
