import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from workers.methods.admn.network import ADMN, flops_per_sample, full_mask, image_qoi, static_mask
from workers.methods.admn.training import predict, train_backbones, train_controller


def make_net(budget=3, seed=0):
    torch.manual_seed(seed)
    return ADMN([16, 16], 3, [3, 2], budget, d=6, hidden=10, controller_hidden=5)


def views(n=12, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(n, 16, generator=g), torch.rand(n, 16, generator=g)]


def manual_forward(net, vs, mask):
    """Dense reference: each sample alone, running only its selected blocks."""
    out = []
    for i in range(vs[0].shape[0]):
        feats = []
        for bb, v, m in zip(net.backbones, vs, net.split(mask[i : i + 1]), strict=True):
            h = bb.stem(v[i : i + 1])
            for j, block in enumerate(bb.blocks):
                if m[0, j] == 1:
                    h = h + block.fc2(torch.relu(block.fc1(block.norm(h))))
            feats.append(bb.norm(h))
        out.append(net.head(torch.cat(feats, -1)))
    return torch.cat(out)


def test_eval_runs_only_the_selected_layers():
    net, vs = make_net().eval(), views()
    mask = net.select(vs)[0]
    rows = {}
    hooks = [
        blk.fc1.register_forward_hook(
            lambda mod, inp, out, key=(m, i): rows.__setitem__(
                key, rows.get(key, 0) + inp[0].shape[0]
            )
        )
        for m, bb in enumerate(net.backbones)
        for i, blk in enumerate(bb.blocks)
    ]
    with torch.no_grad():
        logits, used, _ = net(vs)
    for h in hooks:
        h.remove()
    assert torch.equal(used, mask)
    assert torch.all(used.sum(-1) == 3)
    cols = used.sum(0)
    flat = [(m, i) for m, n in enumerate(net.layers) for i in range(n)]
    for j, key in enumerate(flat):  # each block saw exactly the samples that selected it
        assert rows.get(key, 0) == int(cols[j])
    with torch.no_grad():
        torch.testing.assert_close(logits, manual_forward(net, vs, used))


def test_unselected_layers_do_not_affect_the_output():
    net, vs = make_net().eval(), views()
    mask = static_mask(net, [[0, 2], [1]], vs[0].shape[0])
    with torch.no_grad():
        before = net(vs, mask)[0]
        net.backbones[0].blocks[1].fc2.weight.add_(5.0)
        net.backbones[1].blocks[0].fc1.weight.mul_(-3.0)
        after = net(vs, mask)[0]
        net.backbones[0].blocks[2].fc2.weight.add_(torch.randn(6, 10))  # a selected one does
        changed = net(vs, mask)[0]
    torch.testing.assert_close(before, after)
    assert not torch.allclose(before, changed)


def test_training_mode_masked_residuals_equal_sparse_eval():
    net, vs = make_net(), views()
    mask = (torch.rand(12, 5, generator=torch.Generator().manual_seed(3)) > 0.5).float()
    with torch.no_grad():
        dense = net.train().fuse(vs, mask)
        sparse = net.eval().fuse(vs, mask)
    torch.testing.assert_close(dense, sparse)


def test_flops_match_a_manual_count_and_torch_flop_counter():
    net, vs = make_net().eval(), views(n=1)
    d, h = 6, 10
    stems, head = 2 * (16 * d) * 2, 2 * (2 * d) * 3
    ctrl = (
        2 * (5 * 5) * 2 + 2 * (10 * 5) + 2 * (5 * 5)
    )  # encoders (QoI 4+1 -> 5), trunk, layer logits
    mask = static_mask(net, [[0, 2], [1]], 1)
    assert int(flops_per_sample(net, mask, with_controller=False)) == stems + head + 3 * 4 * d * h
    assert int(flops_per_sample(net, mask)) == stems + head + 3 * 4 * d * h + ctrl
    assert int(flops_per_sample(net, full_mask(net, 1), False)) == stems + head + 5 * 4 * d * h
    with torch.no_grad():
        with FlopCounterMode(display=False) as fc:
            net.fuse(vs, mask)
    assert fc.get_total_flops() == stems + head + 3 * 4 * d * h


def test_straight_through_gradient_reaches_the_controller():
    net, vs = make_net().train(), views()
    logits, mask, noise = net(vs)
    assert torch.all(mask.sum(-1) == 3)
    torch.nn.functional.cross_entropy(logits, torch.zeros(12, dtype=torch.long)).backward()
    g = net.controller.layer_logits.weight.grad
    assert g is not None and g.abs().sum() > 0


def test_controller_stage_leaves_backbones_frozen_and_stage1_learns():
    net, vs = make_net(), views(n=60)
    y = (vs[0].mean(1) > vs[0].mean()).long()
    hist = train_backbones(net, vs, y, epochs=15, lr=1e-2, batch_size=20, layerdrop_p=0.3)
    assert hist[-1] < hist[0]
    frozen = {k: v.clone() for k, v in net.state_dict().items() if not k.startswith("controller.")}
    ctrl = net.controller.layer_logits.weight.clone()
    train_controller(net, vs, y, torch.rand(60, 2), epochs=2, batch_size=20)
    for k, v in frozen.items():
        torch.testing.assert_close(net.state_dict()[k], v)
    assert not torch.equal(net.controller.layer_logits.weight, ctrl)
    assert all(p.requires_grad for p in net.parameters())
    pred, used = predict(net, vs)
    assert pred.shape == (60,) and torch.all(used.sum(-1) == 3)


def test_qoi_high_frequency_energy_grows_with_noise():
    g = torch.Generator().manual_seed(0)
    x = torch.rand(50, 64, generator=g)
    q0, q1 = image_qoi(x, 8), image_qoi(x + torch.randn(50, 64, generator=g), 8)
    assert q0.shape == (50, 17)
    assert torch.all(q1[:, -1] > q0[:, -1])


def test_bad_arguments_raise_naming_the_field():
    with pytest.raises(ValueError, match="budget"):
        ADMN([16, 16], 3, [2, 2], 5)
    with pytest.raises(ValueError, match="in_dims"):
        ADMN([15, 16], 3, [2, 2], 2)
    with pytest.raises(ValueError, match="layerdrop_p"):
        train_backbones(make_net(), views(), torch.zeros(12, dtype=torch.long), layerdrop_p=1.0)
    with pytest.raises(ValueError, match="mask"):
        make_net().fuse(views(), torch.ones(12, 4))
