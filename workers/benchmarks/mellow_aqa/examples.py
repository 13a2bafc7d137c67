"""Run-page examples: both clips as WAV, their spectrograms side by side as PNG, and a table of
question, options, the model's answer and the reference."""

from __future__ import annotations

import numpy as np
import torch

from workers.benchmarks.mellow_aqa.audio import LogMel, spectrogram_png, wav_bytes


def save_examples(ctx, method, items, scores, clips, n: int) -> list[dict]:
    if n <= 0 or not items:
        return []
    rng = np.random.default_rng([ctx.seed, 3])
    # one example per family first, so the page shows the whole range of questions
    by_family: dict[str, int] = {}
    for i, it in enumerate(items):
        by_family.setdefault(it.family, i)
    picks = list(by_family.values())
    rng.shuffle(picks)
    picks = picks[:n]
    sr = clips[items[picks[0]].clip_a].sample_rate
    logmel = LogMel(sr)
    table = []
    scratch = (
        ctx.scratch_dir()
    )  # files, so the run page guesses audio/wav and image/png from the name

    def save(name: str, data: bytes) -> None:
        path = scratch / name.replace("/", "_")
        path.write_bytes(data)
        ctx.save_artifact(name, path)

    for k, i in enumerate(picks):
        it = items[i]
        a, b = clips[it.clip_a], clips[it.clip_b]
        save(f"examples/{k}_a.wav", wav_bytes(a.wav, a.sample_rate))
        save(f"examples/{k}_b.wav", wav_bytes(b.wav, b.sample_rate))
        with torch.no_grad():
            mels = logmel(torch.from_numpy(np.stack([a.wav, b.wav]))).numpy()
        gap = np.full((mels.shape[1], 4), mels.min())
        save(
            f"examples/{k}_mel.png",
            spectrogram_png(np.concatenate([mels[0], gap, mels[1]], axis=1)),
        )
        choice = int(np.argmax(scores[i]))
        row = {
            "example": k,
            "family": it.family,
            "reasoning": it.reasoning,
            "split": it.split,
            "question": it.question,
            "options": " | ".join(it.options),
            "model_answer": it.options[choice],
            "reference": it.answer,
            "correct": choice == it.answer_index,
            "caption_a": a.caption,
            "caption_b": b.caption if it.clip_b != it.clip_a else "",
            "audio_a": f"examples/{k}_a.wav",
            "audio_b": f"examples/{k}_b.wav",
            "spectrogram": f"examples/{k}_mel.png",
        }
        generate = getattr(method, "answer", None)
        if generate is not None:
            row["model_free_text"] = generate(it, clips)
        table.append(row)
    ctx.save_artifact("examples.json", table)
    return table
