"""The small text-conditioned latent video diffusion model, its training cache, the samplers'
model interface and the diffusers adapter."""
