"""Each reward metric behaves right on constructed videos."""

import pytest
import torch

from workers.benchmarks.video_dlbs.data import (
    ALL_PROMPTS,
    BACKGROUND,
    VideoSpec,
    corrupt,
    parse_prompt,
    prompt_text,
    render,
    sample_videos,
)
from workers.benchmarks.video_dlbs.rewards import (
    FrameNet,
    JudgeConfig,
    VideoClassifier,
    VideoRewards,
    dynamic_degree,
    get_or_train_judges,
    motion_smoothness,
    oracle_score,
)

SPEC = VideoSpec()


def video(c=0, s=1, d=1, v=0, start=(10.0, 16.0)):
    attrs = torch.tensor([[c, s, d, v]])
    return render(attrs, torch.tensor([start]), SPEC), attrs[0]


def test_prompts_round_trip_and_dataset_shapes():
    assert len(ALL_PROMPTS) == 96
    for attrs in ALL_PROMPTS[::7]:
        assert torch.equal(parse_prompt(prompt_text(attrs)), attrs)
    with pytest.raises(ValueError):
        parse_prompt("a red blue circle moving left slow")
    v, a = sample_videos(5, SPEC, torch.Generator().manual_seed(0))
    assert v.shape == (5, 8, 3, 32, 32) and 0 <= v.min() and v.max() <= 1 and a.shape == (5, 4)


def test_dynamic_degree_is_zero_for_a_static_video_and_grows_with_speed():
    v, _ = video()
    static = v[:, :1].expand_as(v).clone()
    assert float(dynamic_degree(static)[0]) == pytest.approx(0.0, abs=1e-6)
    blank = torch.full_like(v, BACKGROUND)
    assert float(dynamic_degree(blank)[0]) == 0.0
    slow, _ = video(v=0)
    fast, _ = video(v=1, start=(8.0, 16.0))
    assert float(dynamic_degree(slow)[0]) == pytest.approx(1.0, abs=0.05)
    assert float(dynamic_degree(fast)[0]) == pytest.approx(2.5, abs=0.1)


def test_motion_smoothness_prefers_steady_motion_to_jitter():
    v, _ = video(v=1, start=(8.0, 16.0))
    steady = float(motion_smoothness(v)[0])
    jitter = v[:, torch.tensor([0, 2, 1, 4, 3, 6, 5, 7])]
    assert steady > 0.99
    assert steady > float(motion_smoothness(jitter)[0]) + 0.005
    static = v[:, :1].expand_as(v).clone()
    assert float(motion_smoothness(static)[0]) == pytest.approx(1.0, abs=1e-5)


def test_subject_consistency_and_quality_on_constructed_videos():
    torch.manual_seed(0)
    rewards = VideoRewards(FrameNet().eval(), VideoClassifier().eval(), SPEC)
    v, attrs = video()
    static = v[:, :1].expand_as(v).clone()
    assert float(rewards.subject_consistency(static)[0]) == pytest.approx(1.0, abs=1e-5)
    other, _ = video(c=2, s=0, start=(20.0, 10.0))
    swapped = torch.cat([v[:, :4], other[:, 4:]], dim=1)  # the subject changes half way
    assert float(rewards.subject_consistency(swapped)[0]) < 1.0
    m = rewards.metrics(v, attrs)
    assert set(m) >= {
        "subject_consistency",
        "motion_smoothness",
        "dynamic_degree",
        "quality",
        "text_consistency",
        "text_accuracy",
    }
    assert all(x.shape == (1,) for x in m.values())
    assert 0 <= float(m["text_consistency"][0]) <= 1


def test_oracle_scores_the_prompt_rendering_high_and_others_low():
    v, attrs = video(start=(11.3, 15.7))
    assert float(oracle_score(v, attrs, SPEC)[0]) > 0.9
    wrong_colour = float(oracle_score(v, torch.tensor([2, 1, 1, 0]), SPEC)[0])
    wrong_direction = float(oracle_score(v, torch.tensor([0, 1, 0, 0]), SPEC)[0])
    blank = float(oracle_score(torch.full_like(v, BACKGROUND), attrs, SPEC)[0])
    assert wrong_colour < 0.7 and wrong_direction < 0.7 and blank == pytest.approx(0.0, abs=1e-6)


def test_trained_judges_read_the_attributes_and_the_corruption(tmp_path):
    frame_net, clf, rec = get_or_train_judges(JudgeConfig(steps=150), tmp_path)
    assert min(rec["classifier_accuracy"][:2]) > 0.6  # colour and shape, after 150 steps
    rewards = VideoRewards(frame_net, clf, SPEC)
    v, a = sample_videos(16, SPEC, torch.Generator().manual_seed(9))
    bad = corrupt(v, torch.ones(16), torch.Generator().manual_seed(1))
    assert float(rewards.quality(v).mean()) > float(rewards.quality(bad).mean())
    again = get_or_train_judges(JudgeConfig(steps=150), tmp_path)  # from the cache
    assert torch.equal(again[1].heads[0].weight, clf.heads[0].weight)
