"""The diffusers adapter on a tiny randomly initialised UNet3DConditionModel (no hub download)."""

import pytest
import torch

diffusers = pytest.importorskip("diffusers")

from workers.methods.dlbs.samplers import beam_nfe, beam_search, best_of_n, ddim  # noqa: E402
from workers.models.video_diffusion.diffusers_adapter import DiffusersVideoModel  # noqa: E402
from workers.models.video_diffusion.interface import CountedModel  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    torch.manual_seed(0)
    unet = diffusers.UNet3DConditionModel(
        sample_size=8,
        in_channels=4,
        out_channels=4,
        down_block_types=("CrossAttnDownBlock3D", "DownBlock3D"),
        up_block_types=("UpBlock3D", "CrossAttnUpBlock3D"),
        block_out_channels=(32, 32),
        layers_per_block=1,
        cross_attention_dim=16,
        attention_head_dim=8,
        norm_num_groups=8,
    ).eval()
    sched = diffusers.DDIMScheduler(
        num_train_timesteps=1000,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    cond = torch.randn(1, 5, 16)
    return unet, sched, cond


def test_adapter_ddim_matches_the_diffusers_scheduler(tiny):
    unet, sched, cond = tiny
    model = DiffusersVideoModel(unet, sched, (4, 3, 8, 8))
    S = 4
    ours, nfe = ddim(model, cond, S, torch.Generator().manual_seed(1))
    z = torch.randn((1, 4, 3, 8, 8), generator=torch.Generator().manual_seed(1))
    sched.set_timesteps(S)
    with torch.no_grad():
        for t in sched.timesteps:
            eps = unet(z, t, encoder_hidden_states=cond).sample
            z = sched.step(eps, t, z, eta=0.0).prev_sample
    assert nfe == S
    assert torch.allclose(ours, z, atol=1e-4, rtol=1e-4)


def test_samplers_run_on_the_adapter_with_exact_nfe(tiny):
    unet, sched, cond = tiny
    model = CountedModel(DiffusersVideoModel(unet, sched, (4, 3, 8, 8)))

    def scorer(z):
        video = model.decode(z)
        assert video.shape == (z.shape[0], 3, 3, 8, 8)
        return -video.std(dim=(1, 2, 3, 4))

    res = beam_search(
        model,
        cond,
        4,
        scorer,
        torch.Generator().manual_seed(0),
        beams=2,
        candidates=2,
        lookahead_steps=2,
    )
    assert res.nfe == beam_nfe(4, 2, 2, 2) == model.nfe
    res = best_of_n(model, cond, 3, 2, scorer, torch.Generator().manual_seed(0))
    assert res.nfe == 6 and res.latent.shape == (1, 4, 3, 8, 8)


def test_prediction_types_are_converted_to_eps(tiny):
    unet, sched, cond = tiny
    z = torch.randn(2, 4, 3, 8, 8)
    base = DiffusersVideoModel(unet, sched, (4, 3, 8, 8)).eps(z, 500, cond)
    v = DiffusersVideoModel(unet, sched, (4, 3, 8, 8), prediction_type="v_prediction").eps(
        z, 500, cond
    )
    a = float(sched.alphas_cumprod[500])
    assert torch.allclose(v, a**0.5 * base + (1 - a) ** 0.5 * z, atol=1e-5)
    guided = DiffusersVideoModel(unet, sched, (4, 3, 8, 8), guidance_scale=3.0).eps(z, 500, cond)
    assert guided.shape == z.shape and not torch.allclose(guided, base)
