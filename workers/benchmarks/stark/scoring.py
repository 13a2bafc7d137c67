"""STARK's answer parsing and scoring (distance.py), and this platform's aggregates.

Per instance, the number STARK computes is kept unchanged as `error`:
- localization / tracking: RMSE between the prediction and the ground truth; an unparseable
  answer is replaced by STARK's fallback guess (the area's centre [5, 5], or t = 5) before the
  RMSE, exactly as distance.handle_nan_values does; `loc_event_spatio_temp` splits into a
  position RMSE (`error`) and a time RMSE (`time_error`);
- field imputation / forecasting: relative error ||p - y|| / ||y|| (STARK's `rmspe` branch);
- tiers 2 and 3: |p - y| on the 0/1 answer, so the answer is correct iff the error is 0.
A prediction shorter than the ground truth is "invalid" in STARK (error None).

On top of that we record `parsed` (tags found and the content read) and `success`: correct for
tiers 2/3; for tier 1, parsed and normalised error <= a threshold (see docs/stark.md).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from workers.benchmarks.stark.catalogue import fallback_answer, task_info
from workers.benchmarks.stark.instance import Instance

_TAGS = re.compile(r"\[RESULTS_START\](.*?)\[RESULTS_END\]", re.DOTALL)
_SPACES, _COMMAS = re.compile(r"\s+"), re.compile(r",+")
_OPEN_COMMA, _COMMA_CLOSE = re.compile(r"\[,"), re.compile(r",\]")
_NOT_KEPT = re.compile(r"[^\d\.\[\]\,]")
# What ast.literal_eval reads as one number from the characters stark_parse keeps: a float
# literal (digits may lead with 0), a run of zeros, or an int without a leading zero (at most
# 15 digits, so that int -> float is exact and the int size limit cannot apply). ASCII digits
# only: float() reads other Unicode digits, Python's number literals do not.
_NUMBER = r"(?:[0-9]+\.[0-9]*|\.[0-9]+|0+|[1-9][0-9]{0,14})"
# Flat answers, by far the most common: "[n,n,...]" (a list) and "n,n,..." with an optional
# trailing comma (a tuple); a lone "n" is a scalar. Anything else goes to ast.literal_eval.
_FLAT_LIST = re.compile(rf"\[({_NUMBER}(?:,{_NUMBER})*)\]")
_FLAT_TUPLE = re.compile(rf"({_NUMBER}(?:,{_NUMBER})*),?")
# Below this reference error (1 unit of the 10 x 10 km area) the normaliser is floored, so an
# object lying next to the centre does not turn a small error into a huge normalised one.
REFERENCE_FLOOR = 1.0


def stark_parse(text: str) -> np.ndarray | None:
    """distance.string_to_np_array: the first [RESULTS_START]...[RESULTS_END] block as an array.

    Kept faithful, including its quirks: whitespace becomes commas and every character other
    than digits, '.', ',', '[' and ']' is dropped (so a minus sign or an exponent is lost).
    Returns None where STARK returns [nan] (no tags, unreadable or empty content).
    """
    if not isinstance(text, str):
        return None
    match = _TAGS.search(text)
    if not match:
        return None
    s = match.group(1).strip()
    s = _SPACES.sub(",", s)
    s = _COMMAS.sub(",", s)
    s = _OPEN_COMMA.sub("[", s)
    s = _COMMA_CLOSE.sub("]", s)
    s = _NOT_KEPT.sub("", s)
    flat = _FLAT_LIST.fullmatch(s) or _FLAT_TUPLE.fullmatch(s)
    if flat is not None:  # what literal_eval + np.array give, without compiling the text
        values = [float(v) for v in flat.group(1).split(",")]
        scalar = len(values) == 1 and flat.re is _FLAT_TUPLE and not s.endswith(",")
        return np.array(values[0] if scalar else values, dtype=float)
    try:
        array = np.array(ast.literal_eval(s), dtype=float)
    except Exception:  # SyntaxError/ValueError in STARK; anything else is just as unreadable
        return None
    if array.size == 0 or np.isnan(array).any():
        return None
    return array


def parse_steps(text: str, n_steps: int) -> list[np.ndarray | None]:
    """Per-step predictions of an online tracking answer.

    Accepted forms: one tagged block per step (what the online protocol produces, one reply per
    step, concatenated), or a single block holding an (n_steps x d) array (an uploaded file).
    """
    blocks = [m.group(0) for m in _TAGS.finditer(text or "")]
    if len(blocks) == 1:
        whole = stark_parse(blocks[0])
        if whole is not None and whole.ndim == 2 and whole.shape[0] >= n_steps:
            return [row for row in whole[:n_steps]]
    steps: list[np.ndarray | None] = [stark_parse(b) for b in blocks[:n_steps]]
    return steps + [None] * (n_steps - len(steps))


@dataclass
class InstanceScore:
    id: str
    task: str
    tier: int
    family: str
    applicable: bool = True
    parsed: bool = False
    error: float | None = None
    time_error: float | None = None
    normalised_error: float | None = None
    correct: bool | None = None
    success: bool = False
    prediction: Any = None

    def as_dict(self) -> dict:
        return asdict(self)


def _rmse(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(((a - b) ** 2).mean()))


def _shape_like_stark(a: np.ndarray) -> np.ndarray:
    return a.reshape(1, 1) if a.shape == () else (a.squeeze() if a.size > 1 else a)


def _stark_distance(
    task: str, pred: np.ndarray, truth: np.ndarray
) -> tuple[float | None, float | None]:
    """distance.compute_mse for one (already fallback-substituted) prediction."""
    info = task_info(task)
    if task == "loc_event_temp":
        return _rmse(pred, truth), None
    if task == "loc_event_spatio_temp":
        return _rmse(pred[:2], truth[:2]), _rmse(pred[2], truth[2])
    pred = _shape_like_stark(pred)
    truth = _shape_like_stark(np.asarray(truth, dtype=float))
    pred = pred.reshape(-1)
    truth = truth.reshape(-1)
    if len(pred) < len(truth):
        return None, None  # "Invalid prediction. Return None."
    pred = pred[: len(truth)]
    if info.family == "field":
        if np.linalg.norm(truth) <= 1e-10:
            return _rmse(pred, truth), None
        return float(np.linalg.norm(pred - truth) / np.linalg.norm(truth)), None
    return _rmse(pred, truth), None


def _tracking_array(task: str, steps: list[np.ndarray | None]) -> tuple[np.ndarray, bool]:
    """compute_mse(string_to_array=False): NaN steps -> fallback, scalars -> (1, 1), squeeze."""
    fallback = np.array(fallback_answer(task))
    fixed, all_parsed = [], True
    for arr in steps:
        if arr is None:
            arr, all_parsed = fallback.copy(), False
        arr = arr.reshape(1, 1) if arr.shape == () else (arr.squeeze() if arr.size > 1 else arr)
        fixed.append(arr)
    return np.array(fixed, dtype=float), all_parsed


def score_instance(
    instance: Instance,
    answer_text: str | None,
    *,
    applicable: bool = True,
    success_threshold: float = 0.1,
) -> InstanceScore:
    """Score one answer exactly as STARK does, plus parse/success flags. Never raises on bad answers."""
    if instance.answer is None:
        raise ValueError(f"instance {instance.id}: no ground truth to score against")
    info = instance.info
    out = InstanceScore(instance.id, instance.task, info.tier, info.family, applicable=applicable)
    if not applicable:
        return out
    truth = np.asarray(instance.answer, dtype=float)
    text = answer_text if isinstance(answer_text, str) else ""
    try:
        if info.family == "tracking":
            steps = parse_steps(text, len(truth))
            pred, out.parsed = _tracking_array(instance.task, steps)
            truth_s = truth.squeeze(-1) if truth.shape[-1] == 1 else truth
            if pred.size != truth_s.size:  # wrong number of values per step: STARK cannot score it
                out.parsed = False
                return out
            pred = pred.reshape(truth_s.shape)
            out.prediction = pred.tolist()
            out.error = _rmse(pred, truth_s)
            ref = _rmse(np.full_like(truth_s, 5.0), truth_s)  # STARK's fallback guess at every step
        else:
            pred = stark_parse(text)
            out.parsed = pred is not None
            if pred is None:
                fallback = fallback_answer(instance.task)
                if fallback is None:
                    return out  # STARK: NaN distance
                pred = np.array(fallback)
            out.prediction = np.ravel(pred).tolist()
            out.error, out.time_error = _stark_distance(instance.task, pred, truth)
            if out.error is None:
                out.parsed = False
                return out
            if info.tier > 1:
                out.correct = out.parsed and out.error == 0.0
                out.success = bool(out.correct)
                return out
            if info.family == "field":
                ref = 1.0  # STARK's error is already relative to ||y||
            else:
                ref_pred = np.array([5.0] * len(truth))  # centre of the area (and t = 5)
                ref = _stark_distance(instance.task, ref_pred, truth)[0] or 0.0
        if info.family != "field":
            ref = max(ref, REFERENCE_FLOOR)
        out.normalised_error = out.error / ref
        if not math.isfinite(out.normalised_error):
            out.parsed = False
        out.success = bool(out.parsed and out.normalised_error <= success_threshold)
    except Exception:  # a malformed answer must count as a failure, never crash the run
        out.parsed, out.success = False, False
    return out
