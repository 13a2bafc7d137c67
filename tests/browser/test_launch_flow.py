"""Real headless Chromium against the embedded deployment started the way the README does
(`manage.py crucible_serve`: Daphne + a Celery worker on SQLite and the file-system broker)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed"),
]


@pytest.fixture(scope="module")
def embedded_site(tmp_path_factory):
    var = tmp_path_factory.mktemp("var")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        CRUCIBLE_VAR_DIR=str(var),
        CRUCIBLE_ADMIN_PASSWORD="browser-pass-123",
        PYTHONUNBUFFERED="1",
        DJANGO_SETTINGS_MODULE="crucible.settings",
    )
    log = open(var / "serve.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "crucible_serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    wait_until_healthy(url, proc, lambda: (var / "serve.log").read_text()[-3000:], timeout=180)
    yield url, var
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


def test_login_launch_watch_live_and_see_leaderboard(embedded_site):
    from playwright.sync_api import expect, sync_playwright

    url, var = embedded_site
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page()
        page.goto(f"{url}/")
        page.fill("#id_username", "admin")
        page.fill("#id_password", "browser-pass-123")
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_have_text("Benchmarks")

        page.goto(f"{url}/launch/?benchmark=cash&method=maxucb")
        expect(page.locator("#f-method_config\\.alpha")).to_have_value("0.5")
        page.select_option("#f-benchmark_config\\.arms", "synthetic")
        page.fill("#f-benchmark_config\\.horizon", "300")
        page.click("#launch-button")
        page.wait_for_url(re.compile(r".*/runs/\d+/$"))
        run_url = page.url
        # Everything below arrives over the websocket: the page is never reloaded.
        expect(page.locator("#progress-text")).to_have_text("100%", timeout=120_000)
        expect(page.locator("#run-status")).to_have_text("succeeded", timeout=30_000)
        expect(page.locator("#curves .main-svg").first).to_be_visible()
        assert int(page.locator("#curves").get_attribute("data-points")) >= 300
        assert page.url == run_url
        page.screenshot(path=str(var / "run.png"), full_page=True)

        page.goto(f"{url}/benchmarks/cash/")
        row = page.locator("#leaderboard-table tbody tr[data-method=maxucb]")
        expect(row).to_have_count(1)
        expect(page.locator("#leaderboard-plot .main-svg").first).to_be_visible()
        page.screenshot(path=str(var / "leaderboard.png"), full_page=True)
        shots = os.environ.get("CRUCIBLE_SCREENSHOT_DIR")
        if shots:
            for name in ("run.png", "leaderboard.png"):
                shutil.copy(var / name, Path(shots) / name)
        browser.close()
