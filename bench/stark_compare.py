"""Error per STARK task family for each method/model, side by side (Plotly).

    # from a deployment: the leaderboard JSON (page "JSON" link, or the API with all columns)
    .venv/bin/python -m bench.stark_compare --board board.json --out stark_compare.html
    .venv/bin/python -m bench.stark_compare --board http://host/api/leaderboards/stark/?columns=all
    # offline demo on the shared sample: three entries run in-process
    .venv/bin/python -m bench.stark_compare --demo --out stark_compare.html [--png docs/stark_compare.png]

The demo compares the classical solvers (tolerance 2e-4), the same solvers with exact predicates
on the printed coordinates (tolerance 0), and an uninformed upload that answers STARK's
fallback guess everywhere ([5, 5] / 5 for tier 1, 0 for tiers 2-3). Prints the per-family
failure rates it plots.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request
from pathlib import Path

from workers.benchmarks.stark.catalogue import fallback_answer
from workers.benchmarks.stark.figures import compare_by_family, entries_from_leaderboard
from workers.benchmarks.stark.importer import load_release
from workers.benchmarks.stark.plugin import StarkBenchmark
from workers.core import InMemoryRunContext
from workers.core.data import shared_data_dir
from workers.methods.stark_classical.plugin import StarkClassical
from workers.methods.stark_predictions.plugin import StarkUploadedPredictions


def _read_board(source: str, token: str = "") -> dict:
    """A JSON file, or an API URL read with a bearer token (the API needs one)."""
    if source.startswith(("http://", "https://")):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with urllib.request.urlopen(
            urllib.request.Request(source, headers=headers), timeout=60
        ) as resp:
            return json.loads(resp.read().decode())
    return json.loads(Path(source).read_text())


def _guess_file(root: Path, dest: Path) -> Path:
    """STARK's fallback guess for every instance, as an uploaded predictions file."""
    lines = []
    for inst in load_release(root, limit_per_task=4):
        guess = fallback_answer(inst.task) or [0]
        block = f"[RESULTS_START] {list(guess)} [RESULTS_END]"
        answer = "\n".join([block] * len(inst.steps)) if inst.family == "tracking" else block
        lines.append(json.dumps({"id": inst.id, "answer": answer}))
    dest.write_text("\n".join(lines))
    return dest


def demo_entries(tmp: Path) -> dict[str, dict]:
    shared = shared_data_dir()
    if shared is None or not (shared / "stark-sample").is_dir():
        raise SystemExit("--demo needs ../shared/data/stark-sample")
    bench_cfg = {"limit_per_task": 4}
    runs = {
        "stark_classical (tol 2e-4)": StarkClassical(),
        "stark_classical (tol 0)": StarkClassical({"tolerance": 0.0, "allen_eps": 0.0}),
        "fallback guess (upload)": StarkUploadedPredictions(
            {"predictions_file": str(_guess_file(shared / "stark-sample", tmp / "guess.jsonl"))}
        ),
    }
    out = {}
    for label, method in runs.items():
        ctx = InMemoryRunContext(seed=0)
        StarkBenchmark(bench_cfg).run(ctx, method)
        out[label] = dict(ctx.summary)
    return out


def _screenshot(html: Path, png: Path) -> None:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=5000", f"--screenshot={png.resolve()}", "--window-size=1280,560",
         f"file://{html.resolve()}"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120,
    )  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", default="", help="leaderboard JSON file or URL")
    ap.add_argument("--demo", action="store_true", help="run three entries on the shared sample")
    ap.add_argument(
        "--token", default=os.environ.get("CRUCIBLE_TOKEN", ""), help="API token (URL boards)"
    )
    ap.add_argument("--out", default="stark_compare.html")
    ap.add_argument("--png", default="", help="also screenshot the figure (headless Chromium)")
    args = ap.parse_args()
    if bool(args.board) == args.demo:
        raise SystemExit("give exactly one of --board and --demo")
    with tempfile.TemporaryDirectory() as tmp:
        entries = (
            demo_entries(Path(tmp))
            if args.demo
            else entries_from_leaderboard(_read_board(args.board, args.token))
        )
    fig = compare_by_family(entries)
    out = Path(args.out)
    fig.write_html(out, include_plotlyjs=True)
    print(f"wrote {out}")
    families = sorted(
        {k.split("__", 1)[1] for m in entries.values() for k in m if k.startswith("success__")}
    )
    print("| entry | " + " | ".join(f"fail {f}" for f in families) + " | success_rate |")
    print("|---" * (len(families) + 2) + "|")
    for label, m in entries.items():
        cells = []
        for f in families:
            v = m.get(f"success__{f}")
            v = v.get("mean") if isinstance(v, dict) else v
            cells.append("-" if v is None else f"{1 - v:.3f}")
        sr = m.get("success_rate")
        sr = sr.get("mean") if isinstance(sr, dict) else sr
        print(f"| {label} | " + " | ".join(cells) + f" | {sr:.4f} |")
    if args.png:
        _screenshot(out, Path(args.png))
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
