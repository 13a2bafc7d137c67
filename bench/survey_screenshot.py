"""Screenshot of a live survey's audit report page (for docs/surveys.md).

Builds a throw-away embedded deployment in a temp dir (SQLite), imports a generated arXiv-format
index, creates a live survey from the generated LaTeX fixture (5 fabricated references), proposes
updates, serves it with `manage.py runserver` and captures the public page with headless Chromium.

    .venv/bin/python -m bench.survey_screenshot [--out docs/surveys_audit.png]
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SETUP = r"""
from workers.surveys.fixtures import generate_fixture
from workers.surveys.ingest import load_survey
from apps.accounts.services import user_create
from apps.surveys import services
fx = generate_fixture("{tmp}/fx", seed=0, n_papers=200, n_refs=20, n_fabricated=4, n_other_surveys=1)
services.index_import(filename="arxiv.jsonl", data=fx.index_path.read_bytes())
s = load_survey(fx.tex_path)
refs = {{r.key: r for r in s.references}}
sections = [{{"title": sec.title, "level": sec.level, "text": "\n\n".join(sec.paragraphs),
             "keywords": [w.lower() for w in sec.title.split()[:1]],
             "references": [dict(key=k, title=refs[k].title, authors=refs[k].authors, year=refs[k].year,
                                 doi=refs[k].doi, arxiv_id=refs[k].arxiv_id, venue=refs[k].venue)
                            for k in dict.fromkeys(sec.citations) if k in refs]}} for sec in s.walk()]
u = user_create(username="maintainer", password="maintainer-password-1")
survey = services.survey_create(user=u, slug="rag", title=s.title, topic="retrieval-augmented generation",
                                content={{"abstract": s.abstract, "sections": sections}})
services.proposals_generate(survey=survey, user=u, min_similarity=0.3)

# An audit run of the same fixture, executed in this process, rendered to a self-contained HTML
# file (the report page needs a login; local CSS and Plotly are inlined for the screenshot).
from pathlib import Path
import plotly
from django.test import Client
from apps.catalog.services import catalog_sync_from_registry
from apps.runs.execution import run_execute
from apps.runs.services import run_submit
catalog_sync_from_registry()
run = run_submit(user=u, benchmark="survey_audit", method="survey_auditor",
                 benchmark_config={{"audit_corpus": True, "fixture_refs": 20, "fixture_fabricated": 4}})
run_execute(run_id=run.pk, attempt=run.attempt, worker_name="screenshot", device="cpu")
c = Client()
c.force_login(u)
html = c.get(f"/surveys/audit/{{run.pk}}/").content.decode()
css = Path("static/crucible/app.css").read_text()
js = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_text()
html = html.replace('<link rel="stylesheet" href="/static/crucible/app.css">', f"<style>{{css}}</style>")
html = html.replace('<script src="/vendor/plotly.min.js"></script>', f"<script>{{js}}</script>")
Path("{tmp}/report.html").write_text(html)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="docs/surveys_audit.png")
    args = ap.parse_args()
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "CRUCIBLE_VAR_DIR": tmp, "HF_HUB_OFFLINE": "1"}
        env.pop("DATABASE_URL", None)
        py = sys.executable
        subprocess.run([py, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)
        subprocess.run(
            [py, "manage.py", "shell", "-c", SETUP.format(tmp=tmp)], cwd=ROOT, env=env, check=True
        )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen(
            [py, "manage.py", "runserver", "--noreload", "--insecure", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            url = f"http://127.0.0.1:{port}/surveys/rag/"
            for _ in range(120):
                try:
                    urllib.request.urlopen(url, timeout=2)
                    break
                except OSError:
                    time.sleep(0.5)
            out = (ROOT / args.out).resolve()
            subprocess.run(
                [
                    chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    f"--screenshot={out}",
                    "--window-size=1280,2200",
                    url,
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=120,
            )
            print(f"wrote {out}")
            report = out.with_name(out.stem + "_run.png")
            subprocess.run(
                [
                    chromium,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    "--virtual-time-budget=8000",
                    f"--screenshot={report}",
                    "--window-size=1280,2600",
                    f"file://{tmp}/report.html",
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=180,
            )
            print(f"wrote {report}")
        finally:
            server.terminate()
            server.wait(timeout=20)


if __name__ == "__main__":
    main()
