"""Adapter: a Hugging Face diffusers video denoiser as a samplers' `VideoDiffusionModel`.

GPU workers run the same samplers (DDIM, best-of-N, greedy, DLBS, DLBS with lookahead) on real
text-to-video models: wrap the pipeline's denoiser (a `UNet3DConditionModel`-style UNet called
as `unet(sample, t, encoder_hidden_states=...)`, or a video transformer such as CogVideoX's
called as `transformer(hidden_states=..., encoder_hidden_states=..., timestep=...)`), its
scheduler's `alphas_cumprod` and timestep spacing, and its VAE. The samplers do the DDIM
algebra themselves, so any scheduler with `alphas_cumprod`, `set_timesteps` and
`final_alpha_cumprod` (DDIM, DDPM, PNDM, ...) works; eps-, v- and sample-prediction models are
converted to eps. One NFE is one guided evaluation of a latent (with classifier-free guidance
the denoiser sees two rows per latent).

diffusers is not a dependency of the project: it is imported only by the code that builds a
pipeline (`from_pipeline`); add `diffusers` to the environment of GPU workers that use it.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from workers.models.video_diffusion.interface import Schedule


class DiffusersVideoModel:
    def __init__(
        self,
        denoiser,
        scheduler,
        latent_shape: tuple[int, ...],
        *,
        vae=None,
        layout: str = "BCFHW",
        call: str = "unet",
        prediction_type: str | None = None,
        guidance_scale: float = 1.0,
        negative_cond: torch.Tensor | None = None,
        x0_clip: float | None = None,
        vae_scaling_factor: float | None = None,
        extra_kwargs: dict | None = None,
    ) -> None:
        if layout not in ("BCFHW", "BFCHW"):
            raise ValueError(
                "layout must be BCFHW (UNet3D) or BFCHW (CogVideoX-style transformers)"
            )
        if call not in ("unet", "transformer"):
            raise ValueError("call must be 'unet' or 'transformer'")
        self.denoiser, self.scheduler, self.vae = denoiser, scheduler, vae
        self.latent_shape = tuple(latent_shape)  # always (C, F, h, w) for the samplers
        self.layout, self.call = layout, call
        self.prediction_type = prediction_type or getattr(
            scheduler.config, "prediction_type", "epsilon"
        )
        self.guidance_scale = float(guidance_scale)
        self.negative_cond = negative_cond
        self.x0_clip = x0_clip
        self.vae_scaling_factor = vae_scaling_factor or (
            getattr(vae.config, "scaling_factor", 1.0) if vae is not None else 1.0
        )
        self.extra_kwargs = extra_kwargs or {}
        self.alphas_cumprod = scheduler.alphas_cumprod.detach().cpu().float()
        self.device = next(denoiser.parameters()).device
        self.dtype = next(denoiser.parameters()).dtype

    # -- schedule ------------------------------------------------------------------------------
    def schedule(self, steps: int) -> Schedule:
        """The scheduler's own timesteps for `steps` steps (its spacing and offset)."""
        self.scheduler.set_timesteps(steps)
        ts = tuple(int(t) for t in self.scheduler.timesteps)
        alphas = self.alphas_cumprod.double()[torch.tensor(ts)]
        final = getattr(self.scheduler, "final_alpha_cumprod", None)
        final = float(final) if final is not None else 1.0
        return Schedule(ts, alphas, final)

    # -- eps -----------------------------------------------------------------------------------
    def _forward(self, z: torch.Tensor, t: int, cond: torch.Tensor) -> torch.Tensor:
        x = z if self.layout == "BCFHW" else z.transpose(1, 2)  # samplers use (C, F, h, w)
        x = x.to(self.device, self.dtype)
        cond = cond.to(self.device, self.dtype)
        if cond.shape[0] == 1 and x.shape[0] > 1:
            cond = cond.expand(x.shape[0], *cond.shape[1:])
        tt = torch.full((x.shape[0],), int(t), device=self.device, dtype=torch.long)
        if self.call == "unet":
            out = self.denoiser(x, tt, encoder_hidden_states=cond, **self.extra_kwargs)
        else:
            out = self.denoiser(
                hidden_states=x, encoder_hidden_states=cond, timestep=tt, **self.extra_kwargs
            )
        out = out.sample if hasattr(out, "sample") else (out[0] if isinstance(out, tuple) else out)
        out = out.float().cpu()
        return out if self.layout == "BCFHW" else out.transpose(1, 2)

    @torch.no_grad()
    def eps(self, z: torch.Tensor, t: int, cond: Any) -> torch.Tensor:
        cond = torch.as_tensor(cond)
        if cond.dim() == 2:
            cond = cond[None]
        if self.guidance_scale != 1.0:
            neg = self.negative_cond if self.negative_cond is not None else torch.zeros_like(cond)
            n = z.shape[0]
            both = self._forward(
                torch.cat([z, z]),
                t,
                torch.cat([neg.expand(n, *cond.shape[1:]), cond.expand(n, *cond.shape[1:])]),
            )
            uncond, text = both.chunk(2)
            out = uncond + self.guidance_scale * (text - uncond)
        else:
            out = self._forward(z, t, cond)
        a = float(self.alphas_cumprod[int(t)])
        if self.prediction_type == "epsilon":
            return out
        if self.prediction_type == "v_prediction":
            return math.sqrt(a) * out + math.sqrt(1 - a) * z
        if self.prediction_type == "sample":
            return (z - math.sqrt(a) * out) / math.sqrt(1 - a)
        raise ValueError(f"unsupported prediction type {self.prediction_type!r}")

    # -- decode --------------------------------------------------------------------------------
    @torch.no_grad()
    def decode(self, z: torch.Tensor) -> torch.Tensor:
        """Latents [N, C, F, h, w] -> videos [N, F, 3, H, W] in [0, 1]. With an image VAE the
        frames are decoded one by one; a pipeline with a video VAE can pass its own `vae` whose
        `decode` takes [N, C, F, h, w]. Without a VAE (pixel-space models) the latents are the
        frames in [-1, 1]."""
        n, c, f = z.shape[:3]
        if self.vae is None:
            return ((z.transpose(1, 2)[:, :, :3] + 1) / 2).clamp(0, 1)
        vae_dtype = next(self.vae.parameters()).dtype
        x = (z / self.vae_scaling_factor).to(self.device, vae_dtype)
        if getattr(self.vae.config, "_class_name", "") == "AutoencoderKL" or not hasattr(
            self.vae, "temporal_compression_ratio"
        ):
            frames = self.vae.decode(x.transpose(1, 2).flatten(0, 1)).sample
            video = frames.view(n, f, *frames.shape[1:])
        else:
            video = self.vae.decode(x).sample.transpose(1, 2)
        return ((video.float().cpu() + 1) / 2).clamp(0, 1)

    # -- pipelines -----------------------------------------------------------------------------
    @classmethod
    def from_pipeline(
        cls,
        pipe,
        prompt: str,
        *,
        num_frames: int,
        height: int,
        width: int,
        guidance_scale: float = 1.0,
        negative_prompt: str = "",
    ) -> tuple[DiffusersVideoModel, torch.Tensor]:
        """(model, cond) for a diffusers text-to-video pipeline (TextToVideoSDPipeline-style with
        `unet`, or CogVideoX-style with `transformer`) and one prompt."""
        denoiser = getattr(pipe, "unet", None) or pipe.transformer
        call = "unet" if getattr(pipe, "unet", None) is not None else "transformer"
        layout = "BCFHW" if call == "unet" else "BFCHW"
        enc = pipe.encode_prompt(
            prompt,
            negative_prompt=negative_prompt or None,
            do_classifier_free_guidance=guidance_scale > 1,
            num_videos_per_prompt=1,
            device=next(denoiser.parameters()).device,
        )
        cond, neg = (enc[0], enc[1]) if isinstance(enc, tuple) else (enc, None)
        vae_scale = getattr(pipe, "vae_scale_factor", 8)
        temporal = getattr(pipe, "vae_scale_factor_temporal", 1)
        channels = getattr(denoiser.config, "in_channels", 4)
        frames = (num_frames - 1) // temporal + 1 if temporal > 1 else num_frames
        shape = (channels, frames, height // vae_scale, width // vae_scale)
        model = cls(
            denoiser,
            pipe.scheduler,
            shape,
            vae=pipe.vae,
            layout=layout,
            call=call,
            guidance_scale=guidance_scale,
            negative_cond=neg,
        )
        return model, cond.detach()
