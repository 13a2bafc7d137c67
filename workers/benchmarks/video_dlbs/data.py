"""The benchmark's dataset: generated moving-shapes videos (the generator lives beside the model
that trains on it, `workers.models.video_diffusion.data`, so the model package never imports the
benchmark)."""

from workers.models.video_diffusion.data import *  # noqa: F403
from workers.models.video_diffusion.data import (  # noqa: F401
    ALL_PROMPTS,
    ATTRIBUTES,
    BACKGROUND,
    N_CLASSES,
    UNIT,
    VideoSpec,
    corrupt,
    parse_prompt,
    prompt_text,
    random_attrs,
    random_starts,
    render,
    sample_videos,
)
