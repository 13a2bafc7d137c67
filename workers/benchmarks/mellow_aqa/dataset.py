"""Build a ReasonAQA-style split: clips (waveforms + captions) and train / test question items.

Training mixture (the paper's ReasonAQA: 30% existing AQA / captioning data, 70% questions
generated from captions): `synthetic_share` of the training items are generated questions
(multiple choice over every family, plus detailed open answers) and the rest are
"existing-dataset" items (captioning and ClothoAQA-like yes/no questions), at a fixed total.
Test items are multiple choice only, in-distribution and out-of-distribution.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from workers.benchmarks.mellow_aqa import questions as Q
from workers.benchmarks.mellow_aqa.audio import fit_length, read_wav
from workers.benchmarks.mellow_aqa.items import AQAItem
from workers.benchmarks.mellow_aqa.synth import ClipSpec, render, sample_clip


@dataclass
class Clip:
    clip_id: str
    wav: np.ndarray  # float32 mono at sample_rate, fixed length
    sample_rate: int
    captions: list[str]
    spec: ClipSpec | None = None  # exact labels for synthetic clips

    @property
    def caption(self) -> str:
        return self.captions[0] if self.captions else ""


@dataclass
class AQASplit:
    clips: dict[str, Clip]
    train: list[AQAItem]
    test: list[AQAItem]
    info: dict = field(default_factory=dict)

    def sha256(self) -> str:
        digest = hashlib.sha256()
        for cid in sorted(self.clips):
            digest.update(cid.encode())
            digest.update(np.ascontiguousarray(self.clips[cid].wav).tobytes())
        for item in self.train + self.test:
            digest.update(repr(item.as_dict()).encode())
        return digest.hexdigest()


def _synthetic_clips(rng, prefix: str, n: int, ood: bool, sr: int, seconds: float) -> list[Clip]:
    out = []
    for i in range(n):
        spec = sample_clip(rng, f"{prefix}{i:05d}", ood=ood, sample_rate=sr, seconds=seconds)
        out.append(Clip(spec.clip_id, render(spec), sr, [spec.caption], spec))
    return out


def generated_train_items(
    rng, clips: list[Clip], n: int, detailed_share: float = 0.1
) -> list[AQAItem]:
    """n generated items: multiple choice over single-clip and pair families, plus detailed."""
    families = list(Q.SINGLE_FAMILIES) + list(Q.PAIR_FAMILIES)
    items: list[AQAItem] = []
    attempts = 0
    while len(items) < n:
        attempts += 1
        if attempts > 50 * n + 100:
            raise RuntimeError("question generation stalled (too few clips for the families?)")
        a = clips[int(rng.integers(len(clips)))]
        iid = f"tr{attempts:06d}"
        if rng.random() < detailed_share:
            items.append(Q.detailed_item(iid, a.spec))
            continue
        fam = families[int(rng.integers(len(families)))]
        if fam in Q.PAIR:
            b = clips[int(rng.integers(len(clips)))]
            item = Q.pair_question(rng, iid, a.spec, b.spec, fam) if b is not a else None
        else:
            item = Q.single_question(rng, iid, a.spec, fam)
        if item is not None:
            items.append(item)
    return items


def existing_train_items(rng, clips: list[Clip], n: int) -> list[AQAItem]:
    items: list[AQAItem] = []
    k = 0
    while len(items) < n:
        c = clips[int(rng.integers(len(clips)))]
        items.append(Q.existing_items(rng, f"ex{k:06d}", c.spec)[int(rng.integers(2))])
        k += 1
    return items


def test_items(rng, clips: list[Clip], pairs_per_clip: int, tag: str) -> list[AQAItem]:
    """Every applicable single-clip family per clip, and `pairs_per_clip` comparisons with a
    random partner of the same split: per-family counts stay balanced across seeds."""
    items: list[AQAItem] = []
    for i, c in enumerate(clips):
        for fam in Q.SINGLE_FAMILIES:
            item = Q.single_question(rng, f"{tag}{i:05d}-{fam}", c.spec, fam)
            if item is not None:
                items.append(item)
        for p in range(pairs_per_clip):
            b = clips[(i + 1 + int(rng.integers(len(clips) - 1))) % len(clips)]
            fams = [f for f in Q.PAIR_FAMILIES]
            for _ in range(len(fams)):
                fam = fams[int(rng.integers(len(fams)))]
                item = Q.pair_question(rng, f"{tag}{i:05d}-p{p}-{fam}", c.spec, b.spec, fam)
                if item is not None:
                    items.append(item)
                    break
    return items


def build_synthetic(
    seed: int,
    *,
    n_train_clips: int,
    n_train_items: int,
    n_test_clips: int,
    synthetic_share: float,
    sample_rate: int,
    seconds: float,
    pairs_per_clip: int = 2,
) -> AQASplit:
    """The synthetic split; the same seed gives every method the same clips and questions."""
    clip_seq, train_seq, test_seq = np.random.SeedSequence([seed, 11]).spawn(3)
    crng = np.random.default_rng(clip_seq)
    train_clips = _synthetic_clips(crng, "train-", n_train_clips, False, sample_rate, seconds)
    id_clips = _synthetic_clips(crng, "test-id-", n_test_clips, False, sample_rate, seconds)
    ood_clips = _synthetic_clips(crng, "test-ood-", n_test_clips, True, sample_rate, seconds)
    trng = np.random.default_rng(train_seq)
    n_gen = int(round(synthetic_share * n_train_items))
    train = generated_train_items(trng, train_clips, n_gen) + existing_train_items(
        trng, train_clips, n_train_items - n_gen
    )
    trng.shuffle(train)
    erng = np.random.default_rng(test_seq)
    test = test_items(erng, id_clips, pairs_per_clip, "id") + test_items(
        erng, ood_clips, pairs_per_clip, "ood"
    )
    clips = {c.clip_id: c for c in train_clips + id_clips + ood_clips}
    return AQASplit(clips, train, test, {"n_generated": n_gen, "n_existing": n_train_items - n_gen})


def load_real_clips(captioned, sample_rate: int, seconds: float) -> list[Clip]:
    """Clips from importer records, resampled and repeat-padded / cropped to `seconds`."""
    n = int(round(sample_rate * seconds))
    return [
        Clip(
            c.clip_id,
            fit_length(read_wav(c.path, sample_rate)[0], n),
            sample_rate,
            list(c.captions),
        )
        for c in captioned
    ]
