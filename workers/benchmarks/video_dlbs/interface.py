"""The interface every sampler on `video-dlbs` implements (kept apart from the benchmark so the
method package can import it without a cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workers.benchmarks.video_dlbs.paper import DLBS_PAPER
from workers.core import Method

if TYPE_CHECKING:  # the samplers package imports this module: no import cycle at run time
    import torch

    from workers.methods.dlbs.samplers import SampleResult, Scorer


class VideoSearchMethod(Method):
    """`sample` returns one clean latent chosen within `budget` NFE (counted by `model`, a
    CountedModel); `scorer` maps clean latents to rewards; `lookahead` overrides T' in the
    lookahead experiment (methods without lookahead ignore it)."""

    benchmarks = ("video-dlbs",)
    paper = DLBS_PAPER
    uses_lookahead = False

    def sample(
        self,
        model,
        cond,
        scorer: Scorer,
        *,
        steps: int,
        budget: int,
        generator: torch.Generator,
        lookahead: int | None = None,
    ) -> SampleResult:
        raise NotImplementedError
