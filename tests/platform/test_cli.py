"""The `crucible` command against a live server (pytest-django's live_server)."""

from __future__ import annotations

import pytest

from crucible_cli.main import main

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cli(live_server, user, synced, settings, monkeypatch, tmp_path):
    from apps.accounts.services import api_token_create

    settings.CELERY_TASK_ALWAYS_EAGER = True
    from crucible.celery import app

    app.conf.task_always_eager = True
    _, raw = api_token_create(user=user)
    monkeypatch.setenv("CRUCIBLE_CONFIG", str(tmp_path / "cfg.json"))
    yield lambda *args: main(["--url", live_server.url, "--token", raw, *args])
    app.conf.task_always_eager = False


def test_submit_wait_logs_leaderboard(cli, capsys):
    assert (
        cli("submit", "probe", "probe_fast", "--set", "benchmark.steps=10", "--seed", "2", "--wait")
        == 0
    )
    out = capsys.readouterr().out
    assert "succeeded" in out and '"loss"' in out
    run_id = out.split()[1]
    assert cli("logs", run_id, "--follow") == 0
    logs = capsys.readouterr().out
    assert "step 10 loss" in logs and "[succeeded]" in logs
    assert cli("leaderboard", "probe") == 0
    assert "probe_fast" in capsys.readouterr().out
    assert cli("runs", "--benchmark", "probe") == 0
    assert run_id in capsys.readouterr().out


def test_errors_are_readable(cli, capsys):
    assert cli("submit", "probe", "probe_fast", "--set", "benchmark.steps=0") == 2
    err = capsys.readouterr().err
    assert "benchmark_config.steps" in err and "greater than or equal to 1" in err
    with pytest.raises(SystemExit):
        cli("submit", "probe", "probe_fast", "--set", "steps=3")
