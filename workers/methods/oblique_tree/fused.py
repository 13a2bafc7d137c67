"""The ReLU+Argmin soft objective and its exact gradient in one pass over row chunks.

Same quantity as the autograd reference (`reluargmin.soft_objective_reference`):

    obj = mean_i sum_l w_il loss(c_l, y_i),  w_i = prune(softmin(scale * V_i)),
    V_il = sum_{t in A_L(l)} ReLU(s_it) + sum_{t in A_R(l)} ReLU(-s_it),  s = X A^T - b,

but the gradient is written out by hand and computed during the forward pass, chunk of rows by
chunk of rows, so that no (n, 2^D) intermediate of the whole batch is ever stored (a depth-12
batch of 4,096 rows has 16.8M entries per intermediate; autograd kept about a dozen of them):

    dobj/dw_il  = g_il = keep_il loss_il               (keep = w > 1/2^D when pruning, else 1)
    dobj/dV_il  = -scale w_il (g_il - sum_m w_im g_im)  (softmax backward)
    dobj/ds_it  = 1[s_it > 0] sum_{l below t, left} dV_il - 1[s_it < 0] sum_{l below t, right} dV_il

The subtree sums are an upward pass, level by level (O(n 2^D)), the mirror image of the
downward accumulation of V. Inside, leaves and nodes are stored in bit-reversed order (the root's
decision is the lowest bit of a leaf's position), so that both passes work on contiguous
column blocks in place: a level-d node j has its left child at j and its right child at j + 2^d.
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F

# rows per chunk = CHUNK_ENTRIES // 2^D: a chunk's (rows, 2^D) blocks stay in the CPU caches;
# on a GPU, chunks only bound the memory (2^26 entries: 256 MB per float32 buffer)
CHUNK_ENTRIES = 2**18
CHUNK_ENTRIES_GPU = 2**26


def _bit_reverse(x: torch.Tensor, bits: int) -> torch.Tensor:
    out = torch.zeros_like(x)
    for i in range(bits):
        out |= ((x >> i) & 1) << (bits - 1 - i)
    return out


@functools.lru_cache(maxsize=32)
def bit_reversed_order(depth: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(nodes, leaves): heap index of each internal node position and leaf position."""
    nodes = torch.cat(
        [2**d - 1 + _bit_reverse(torch.arange(2**d), d) for d in range(depth)]
    )  # level by level, as in heap order
    return nodes, _bit_reverse(torch.arange(2**depth), depth)


# exp of an argument below log(FLT_MIN) = -87.3 takes a slow path on CPU (about 15x). Such a
# weight is a float32 denormal or 0: arguments are clamped at -87 and the (unnormalised) weights
# below exp(-86.9) = 1.8e-38 set to 0, like FTZ arithmetic would; nothing above that changes.
LOG_TINY = {torch.float32: -87.0, torch.float64: -700.0}


def _softmax_(x: torch.Tensor) -> torch.Tensor:
    """Row softmax in place for rows whose maximum is exactly 0 (x = -scale V, min_l V = 0)."""
    low = LOG_TINY.get(x.dtype, -87.0)
    F.threshold(x.clamp_(min=low).exp_(), math.exp(low + 0.1), 0.0, inplace=True)
    return x.div_(x.sum(1, keepdim=True))


class _SoftObjective(torch.autograd.Function):
    """Inputs X (n, p), A (2^D-1, p), b (2^D-1,), C (2^D, K), y; returns the scalar objective.

    C is the table of per-leaf losses for classification (C[l, k] = loss of leaf l on class k,
    y holds class indices) or the leaf values for regression (loss = ||y_i - c_l||^2, y (n, K)).
    Every per-chunk array lives in a buffer allocated once: fresh allocations of this size cost
    page faults on every chunk.
    """

    @staticmethod
    def forward(ctx, X, A, b, C, y, scale, prune, regression, nodes, leaves, chunk_entries):
        n, n_leaves = X.shape[0], C.shape[0]
        n_nodes, depth = n_leaves - 1, n_leaves.bit_length() - 1
        need_x = ctx.needs_input_grad[0]
        A_i, b_i, C_i = A[nodes], b[nodes], C[leaves]
        table = C_i.T.contiguous()  # (K, leaves); classification: row k = losses on class k
        dAT, db = A_i.new_zeros(A_i.shape[1], n_nodes), torch.zeros_like(b_i)
        dtable = torch.zeros_like(table)  # classification: sum of kept weights per class
        wsum = C.new_zeros(n_leaves)  # regression: sum_i wp_il and sum_i wp_il y_i
        wy = torch.zeros_like(table)
        dX = torch.zeros_like(X) if need_x else None
        thr = 1.0 / n_leaves
        total = X.new_zeros(())
        rows = max(1, min(n, chunk_entries // n_leaves))
        S_buf, P_buf, N_buf = (X.new_empty(rows, n_nodes) for _ in range(3))
        V_buf, G_buf, W_buf, T_buf = (X.new_empty(rows, n_leaves) for _ in range(4))
        # U[:, 0, k] / U[:, 1, k]: dobj/dV summed over the leaves below node k's left / right child
        U_buf = X.new_empty(rows, 2, n_nodes)
        for i0 in range(0, n, rows):
            Xc, yc = X[i0 : i0 + rows], y[i0 : i0 + rows]
            m = Xc.shape[0]
            s, V, g, U = S_buf[:m], V_buf[:m], G_buf[:m], U_buf[:m]
            torch.addmm(b_i, Xc, A_i.T, beta=-1, out=s)  # a_t x - b_t, (m, 2^D - 1)
            relu_pos = torch.clamp(s, min=0, out=P_buf[:m])  # ReLU(s)
            relu_neg = torch.clamp(s, max=0, out=N_buf[:m])  # -ReLU(-s)
            V[:, :1].zero_()
            for d in range(depth):  # downward: level d+1 from level d, in place
                h = 2**d
                torch.sub(V[:, :h], relu_neg[:, h - 1 : 2 * h - 1], out=V[:, h : 2 * h])
                V[:, :h].add_(relu_pos[:, h - 1 : 2 * h - 1])
            w = _softmax_(V.mul_(-scale))  # softmin(scale V), (m, leaves)
            if regression:
                torch.sub(yc[:, :1], table[0], out=g).square_()
                for k in range(1, table.shape[0]):
                    diff = torch.sub(yc[:, k : k + 1], table[k], out=T_buf[:m])
                    g.addcmul_(diff, diff)
            else:
                torch.index_select(table, 0, yc, out=g)  # loss of each leaf on y_i
            if prune:  # (bool masks are several times slower than these float ops on CPU)
                wp = F.threshold(w, thr, 0.0)  # kept weights
                g.mul_(torch.sign(wp, out=T_buf[:m]))  # dobj/dw = loss where kept, else 0
            else:
                wp = w
            if regression:
                wsum += wp.sum(0)
                wy.addmm_(yc.T, wp)
            else:
                dtable.index_add_(0, yc, wp)
            obj = torch.linalg.vecdot(w, g)  # (m,)
            total += obj.sum()
            dV = g.sub_(obj.unsqueeze(1)).mul_(w).mul_(-scale / n)
            h = n_leaves // 2
            U[:, :, h - 1 :].copy_(dV.unflatten(1, (2, h)))  # last level: children are leaves
            for d in reversed(range(1, depth)):  # upward: a node's sum = its children's
                h = 2**d
                torch.add(
                    U[:, 0, h - 1 : 2 * h - 1].unflatten(1, (2, h // 2)),
                    U[:, 1, h - 1 : 2 * h - 1].unflatten(1, (2, h // 2)),
                    out=U[:, :, h // 2 - 1 : h - 1],
                )
            # dobj/ds = 1[s > 0] U_left - 1[s < 0] U_right (ReLU'(0) = 0, as autograd's)
            ds = torch.mul(U[:, 0], relu_pos.sign_(), out=s).addcmul_(U[:, 1], relu_neg.sign_())
            dAT.addmm_(Xc.T, ds)
            db -= ds.sum(0)
            if need_x:
                dX[i0 : i0 + m] = ds @ A_i
        dC = torch.empty_like(C)
        if regression:
            dC[leaves] = (2.0 / n) * (C_i * wsum.unsqueeze(1) - wy.T)
        else:
            dC[leaves] = dtable.T / n
        dA_h, db_h = torch.empty_like(A), torch.empty_like(b)
        dA_h[nodes], db_h[nodes] = dAT.T, db
        ctx.save_for_backward(dX, dA_h, db_h, dC)
        ctx.has_dx = need_x
        return total / n

    @staticmethod
    def backward(ctx, grad):
        dX, dA, db, dC = ctx.saved_tensors
        return (
            grad * dX if ctx.has_dx else None,
            grad * dA,
            grad * db,
            grad * dC,
            *([None] * 7),
        )


def fused_soft_objective(
    X: torch.Tensor,
    A: torch.Tensor,
    b: torch.Tensor,
    C: torch.Tensor,
    y: torch.Tensor,
    scale: float,
    *,
    prune: bool,
    regression: bool,
    chunk_entries: int | None = None,
) -> torch.Tensor:
    """The objective (a scalar with an exact gradient in X, A, b and C); see the module docstring."""
    if y.requires_grad:
        raise ValueError("no gradient with respect to y")
    nodes, leaves = bit_reversed_order(C.shape[0].bit_length() - 1)
    return _SoftObjective.apply(
        X,
        A,
        b,
        C,
        y,
        float(scale),
        prune,
        regression,
        nodes.to(X.device),
        leaves.to(X.device),
        chunk_entries or (CHUNK_ENTRIES if X.device.type == "cpu" else CHUNK_ENTRIES_GPU),
    )
