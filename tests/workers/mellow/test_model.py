"""Encoder, projections, the Mellow module (shapes, gradients, scoring) and the hf_dir decoder path."""

import numpy as np
import pytest
import torch

from tests.workers.mellow.conftest import TINY_ENC, TINY_TRAIN, tiny_llama
from workers.benchmarks.mellow_aqa.dataset import build_synthetic
from workers.core import InMemoryRunContext
from workers.methods.mellow import AudioEncoder, Mellow, MellowMethod, downsample
from workers.methods.mellow.projection import LinearProjection, MLPProjection


def tiny_lm(vocab=50, hidden=32):
    return tiny_llama(vocab, hidden)


def test_encoder_tokens_shape_and_time_major_order():
    enc = AudioEncoder(16000, n_mels=32, hop=400, d=16, depths=(1, 1), heads=2, patch=(8, 8))
    wav = torch.randn(3, 40000) * 0.1
    out = enc(wav)
    frames = enc.features(wav).shape[-1]
    n = frames // enc.time_stride * enc.freq_tokens
    assert out.shape == (3, 1 + n, enc.d_out) and enc.d_out == 32
    assert torch.allclose(out[:, 0], out[:, 1:].mean(dim=1), atol=1e-5)  # clip latent = mean token
    # a burst only in the first half changes early time tokens more than late ones
    quiet = torch.zeros(1, 40000)
    burst = quiet.clone()
    burst[0, :8000] = torch.randn(8000) * 0.3
    enc.eval()
    delta = (enc(burst) - enc(quiet))[0, 1:].norm(dim=-1).reshape(-1, enc.freq_tokens).mean(dim=1)
    assert delta[: len(delta) // 4].mean() > delta[-len(delta) // 4 :].mean()


def test_projections_and_downsample():
    x = torch.randn(2, 9, 12)
    assert LinearProjection(12, 20)(x).shape == (2, 9, 20)
    mlp = MLPProjection(12, 20).eval()
    y = mlp(x)
    assert y.shape == (2, 9, 20)
    assert torch.allclose(y.mean(-1), torch.zeros(2, 9), atol=1e-5)  # ends in LayerNorm
    d = downsample(torch.arange(2 * 9 * 1.0).reshape(1, 9, 2), 4)
    assert d.shape == (1, 3, 2)
    assert d[0, 0].tolist() == [0.0, 1.0] and d[0, 1].tolist() == [
        5.0,
        6.0,
    ]  # clip token kept, mean of 4


@pytest.mark.parametrize("projection", ["linear", "mlp"])
def test_mellow_forward_backward_and_scoring(projection):
    enc = AudioEncoder(16000, n_mels=32, hop=400, d=16, depths=(1, 1), heads=2, patch=(8, 8))
    model = Mellow(
        enc,
        tiny_lm(),
        sep_token_id=1,
        eos_token_id=2,
        pad_token_id=0,
        projection=projection,
        pool=2,
        projection_dropout=0.0,
    )
    mel = enc.features(torch.randn(3, 40000) * 0.1)
    prefix = model.audio_prefix(mel)
    assert prefix.shape[0] == 3 and prefix.shape[2] == 32
    prompts, targets = [[5, 6, 7], [8, 9]], [[10, 2], [11, 12, 2]]
    loss = model(prefix[[0, 1]], prefix[[2, 2]], prompts, targets)
    loss.backward()
    assert torch.isfinite(loss)
    for part in (model.encoder.embed, model.projection, model.lm.get_input_embeddings()):
        assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in part.parameters())
    model.eval()
    with torch.no_grad():
        pa, pb = model.audio_prefix(mel[[0, 1]]), model.audio_prefix(mel[[2, 2]])
        got = model.sequence_logprob(pa, pb, prompts, targets)
        # the same quantity from the full logits of a plain forward pass
        embeds, mask, labels = model.assemble(pa, pb, prompts, targets)
        logp = torch.log_softmax(
            model.lm(inputs_embeds=embeds, attention_mask=mask).logits[:, :-1], -1
        )
        tgt = labels[:, 1:]
        ref = (logp.gather(-1, tgt.clamp_min(0)[..., None])[..., 0] * (tgt != -100)).sum(1)
        assert torch.allclose(got, ref, atol=1e-4)
        # the second clip is part of the input
        other = model.sequence_logprob(pa, model.audio_prefix(mel[[0, 0]]), prompts, targets)
        assert not torch.allclose(got, other)
        assert len(model.generate(pa, pb, [5, 6], max_new_tokens=4)) <= 4


def test_hf_dir_decoder_path_with_a_local_random_llama(tiny_hf_dir, mellow_data_dir):
    split = build_synthetic(
        0,
        n_train_clips=6,
        n_train_items=20,
        n_test_clips=2,
        synthetic_share=0.7,
        sample_rate=16000,
        seconds=2.5,
        pairs_per_clip=1,
    )
    ctx = InMemoryRunContext(seed=0, data_dir=mellow_data_dir)
    for init in ("pretrained", "random"):
        method = MellowMethod(
            {
                "decoder_source": "hf_dir",
                "decoder_path": str(tiny_hf_dir),
                "decoder_init": init,
                **TINY_ENC,
                **TINY_TRAIN,
            }
        )
        method.fit(split.train, split.clips, ctx)
        scores = method.score(split.test, split.clips, ctx)
        assert len(scores) == len(split.test)
        assert all(
            s.shape == (len(it.options),) and np.isfinite(s).all() and (s < 0).all()
            for s, it in zip(scores, split.test, strict=True)
        )
        assert method.model.lm.config.hidden_size == 32
    from workers.methods.mellow.decoder import load_decoder

    saved = tiny_llama(vocab=len(method.tokenizer)).get_input_embeddings().weight
    pre, tok = load_decoder("hf_dir", "pretrained", path=str(tiny_hf_dir))
    rand, _ = load_decoder("hf_dir", "random", path=str(tiny_hf_dir), seed=1)
    assert len(tok) == pre.get_input_embeddings().weight.shape[0]
    assert torch.allclose(pre.get_input_embeddings().weight, saved)  # the directory's weights
    assert not torch.allclose(rand.get_input_embeddings().weight, saved)  # re-initialised
    with pytest.raises(FileNotFoundError, match="decoder_path"):
        MellowMethod({"decoder_source": "hf_dir", "decoder_path": str(tiny_hf_dir / "nope")}).fit(
            split.train, split.clips, ctx
        )


@pytest.mark.slow
def test_encoder_pretraining_tags_and_loss_decreases(mellow_data_dir):
    from workers.methods.mellow.pretrain import TAGS, clip_tags, pretrain_encoder
    from workers.methods.mellow.training import MelBank

    split = build_synthetic(
        1,
        n_train_clips=16,
        n_train_items=30,
        n_test_clips=2,
        synthetic_share=0.7,
        sample_rate=16000,
        seconds=2.5,
    )
    spec = next(c.spec for c in split.clips.values() if c.spec.n_events >= 3)
    tags = dict(zip(TAGS, clip_tags(spec), strict=True))
    assert (
        tags[f"count:{spec.n_events}"] == 1
        and sum(v for k, v in tags.items() if k.startswith("count")) == 1
    )
    assert all(tags[f"type:{e.type}"] == 1 for e in spec.events)
    assert tags[f"rhythm:{spec.rhythm}"] == 1
    enc = AudioEncoder(16000, n_mels=32, hop=400, d=16, depths=(1, 1), heads=2, patch=(8, 8))
    bank = MelBank(split.clips, enc.logmel, enc.time_stride, torch.device("cpu"))
    torch.manual_seed(0)
    losses = pretrain_encoder(
        enc, bank, split.clips, split.train, steps=40, batch_size=16, lr=3e-3, seed=0
    )
    assert np.mean(losses[-5:]) < np.mean(losses[:5])
    train_ids = {c for it in split.train for c in (it.clip_a, it.clip_b)}
    assert not train_ids & {
        c for it in split.test for c in (it.clip_a, it.clip_b)
    }  # tags: train clips only
