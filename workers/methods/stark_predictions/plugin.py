"""A STARK "method" that answers from an uploaded predictions file (JSONL: id, answer).

The platform launches it only through a prediction upload (submission_only), which stores
the file and passes its path; the benchmark then scores the answers server-side exactly as it
scores any method, so ground truth never leaves the server.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import Field

from workers.benchmarks.stark.plugin import STARK_PAPER
from workers.benchmarks.stark.protocol import StarkAnswer
from workers.core import Method, PluginConfig, register_method

MAX_LINE_CHARS = 200_000


class PredictionsError(ValueError):
    pass


def load_predictions(path: str | Path) -> dict[str, str]:
    """Parse a predictions JSONL file; errors name the line and the reason."""
    out: dict[str, str] = {}
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            if len(raw) > MAX_LINE_CHARS:
                raise PredictionsError(f"line {number}: longer than {MAX_LINE_CHARS} characters")
            try:
                record = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise PredictionsError(f"line {number}: not UTF-8") from None
            except json.JSONDecodeError as exc:
                raise PredictionsError(f"line {number}: not JSON ({exc.msg})") from None
            if not isinstance(record, dict) or not isinstance(record.get("id"), str):
                raise PredictionsError(f"line {number}: expected an object with a string 'id'")
            answer = record.get("answer")
            if not isinstance(answer, str):
                raise PredictionsError(f"line {number}: 'answer' must be a string")
            if record["id"] in out:
                raise PredictionsError(f"line {number}: duplicate id {record['id']!r}")
            out[record["id"]] = answer
    if not out:
        raise PredictionsError("the file holds no predictions")
    return out


class PredictionsConfig(PluginConfig):
    predictions_file: str = Field("", max_length=1000, description="Set by the platform on upload")


@register_method
class StarkUploadedPredictions(Method):
    name = "stark_predictions"
    title = "Uploaded predictions"
    description = "Scores a predictions file uploaded for a STARK split (hidden test set)."
    benchmarks = ("stark",)
    paper = STARK_PAPER
    Config = PredictionsConfig
    submission_only = True

    @classmethod
    def check_upload(cls, path: str | Path) -> int:
        """Validate an uploaded file before a run is queued; returns the number of predictions."""
        return len(load_predictions(path))

    def __init__(self, config=None) -> None:
        super().__init__(config)
        self._answers: dict[str, str] | None = None
        self._asked = 0
        self._missing = 0

    def answer(self, instance, ctx) -> StarkAnswer:
        if self._answers is None:
            if not self.config.predictions_file:
                raise PredictionsError("predictions_file: no uploaded file was given")
            self._answers = load_predictions(self.config.predictions_file)
        self._asked += 1
        if instance.id not in self._answers:
            self._missing += 1  # scored as an unparseable failure by the benchmark
        return StarkAnswer(self._answers.get(instance.id))

    def run_summary(self) -> dict[str, float]:
        """Counts only (no ids): instances without a prediction, and predictions not used by
        this split/chunk (ids of another split, or unknown)."""
        used = self._asked - self._missing
        n_file = len(self._answers or {})
        return {"n_missing": float(self._missing), "n_predictions_unused": float(n_file - used)}
