"""Every generated question has distinct options and exactly one correct one, and the correct
one agrees with measurements of the audio (counts by onset detection, loudness by RMS)."""

import numpy as np
import pytest

from tests.workers.mellow.signal_measures import active_segments, rms_db
from workers.benchmarks.mellow_aqa import questions as Q
from workers.benchmarks.mellow_aqa.dataset import build_synthetic
from workers.benchmarks.mellow_aqa.items import AQAItem, check_mcq
from workers.benchmarks.mellow_aqa.synth import render, sample_clip


@pytest.fixture(scope="module")
def specs():
    rng = np.random.default_rng(0)
    return [sample_clip(rng, f"c{i}", ood=i % 3 == 0) for i in range(60)]


def all_questions(specs, seed=0):
    rng = np.random.default_rng(seed)
    items = []
    for i, a in enumerate(specs):
        for fam in Q.SINGLE_FAMILIES:
            items.append(Q.single_question(rng, f"{i}-{fam}", a, fam))
        b = specs[(i + 7) % len(specs)]
        for fam in Q.PAIR_FAMILIES:
            items.append(Q.pair_question(rng, f"{i}-{fam}", a, b, fam))
    return [it for it in items if it is not None]


def test_every_question_has_distinct_options_and_one_correct(specs):
    items = all_questions(specs)
    assert {it.family for it in items} == set(Q.SINGLE_FAMILIES) | set(Q.PAIR_FAMILIES)
    for it in items:
        norm = [o.lower() for o in it.options]
        assert len(set(norm)) == len(norm) >= 2
        assert norm.count(it.answer.lower()) == 1 and it.options[it.answer_index] == it.answer
    # the correct option is not always in the same place
    positions = np.bincount([it.answer_index for it in items if len(it.options) == 4], minlength=4)
    assert positions.min() > 0.15 * positions.sum()


def test_answers_agree_with_signal_measurements(specs):
    by_id = {s.clip_id: s for s in specs}
    counts = {s.clip_id: len(active_segments(render(s), s.sample_rate)) for s in specs}
    loudest = {}
    for s in specs:
        wav = render(s)
        loudest[s.clip_id] = max(
            rms_db(wav[int(e.onset * s.sample_rate) : int((e.onset + e.duration) * s.sample_rate)])
            for e in s.events
        )
    checked = 0
    for it in all_questions(specs, seed=1):
        if it.family == "event_count":
            assert it.answer == Q.COUNT_TEXT[counts[it.clip_a]]
            checked += 1
        elif it.family == "compare_count":
            ca, cb = counts[it.clip_a], counts[it.clip_b]
            expect = (
                "both contain the same number"
                if ca == cb
                else ("the first clip" if ca > cb else "the second clip")
            )
            assert it.answer == expect
            checked += 1
        elif it.family == "compare_loudness":
            da, db = loudest[it.clip_a], loudest[it.clip_b]
            if abs(da - db) < 5:  # within one level class: the same class, 10 dB apart otherwise
                assert it.answer == "they are about equally loud"
            else:
                assert it.answer == ("the first clip" if da > db else "the second clip")
            checked += 1
        elif it.family == "entailment" and "exactly" in it.question:
            k = next(v for v, w in Q.COUNT_TEXT.items() if f"exactly {w} " in it.question)
            assert it.answer == ("true" if k == by_id[it.clip_a].n_events else "false")
            checked += 1
    assert checked > 60


def test_dataset_mixture_respects_the_synthetic_share():
    split = build_synthetic(
        3,
        n_train_clips=20,
        n_train_items=100,
        n_test_clips=6,
        synthetic_share=0.7,
        sample_rate=16000,
        seconds=2.5,
    )
    origins = [it.origin for it in split.train]
    assert origins.count("generated") == 70 and origins.count("existing") == 30
    assert all(it.is_mcq for it in split.test) and {it.split for it in split.test} == {"id", "ood"}
    assert {it.reasoning for it in split.test} == {"understanding", "deductive", "comparative"}
    train_clips = {it.clip_a for it in split.train} | {it.clip_b for it in split.train}
    test_clips = {it.clip_a for it in split.test} | {it.clip_b for it in split.test}
    assert not train_clips & test_clips
    again = build_synthetic(
        3,
        n_train_clips=20,
        n_train_items=100,
        n_test_clips=6,
        synthetic_share=0.7,
        sample_rate=16000,
        seconds=2.5,
    )
    assert again.sha256() == split.sha256()
    none = build_synthetic(
        3,
        n_train_clips=20,
        n_train_items=50,
        n_test_clips=4,
        synthetic_share=0.0,
        sample_rate=16000,
        seconds=2.5,
    )
    assert all(it.origin == "existing" for it in none.train)


@pytest.mark.parametrize(
    "options, index, answer",
    [
        (["a", "a", "b"], 0, "a"),
        (["a", "b"], 1, "a"),
        (["a", "b"], 0, "c"),
        (["a"], 0, "a"),
        (["a", ""], 0, "a"),
    ],
)
def test_invalid_multiple_choice_is_rejected(options, index, answer):
    with pytest.raises(ValueError):
        check_mcq(options, index, answer)
    with pytest.raises(ValueError):
        AQAItem("x", "c", "c", "q?", answer, "f", options=options, answer_index=index)
