"""Safety metrics across models, mitigations and retrieval conditions, from a deployment's
leaderboard (one run = one model), as one Plotly page.

    .venv/bin/python -m bench.safety_compare --board board.json --out safety_compare.html
    .venv/bin/python -m bench.safety_compare \
        --board "http://host/api/leaderboards/safety_retrieval/?columns=all" --out safety.html

`board.json` is the benchmark page's JSON export with all columns
(`/benchmarks/safety_retrieval/?export=json&columns=all`); the per-cell keys
`<metric>__<mitigation>__<condition>` are its extra columns. A URL needs `--token`
(or CRUCIBLE_TOKEN). Conditions and mitigations default to
every one found in the board.
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.request
from pathlib import Path

from workers.benchmarks.safety_retrieval.figures import leaderboard_comparison


def _read(source: str, token: str = "") -> dict:
    """A JSON file, or an API URL read with a bearer token (the API needs one)."""
    if source.startswith(("http://", "https://")):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with urllib.request.urlopen(
            urllib.request.Request(source, headers=headers), timeout=60
        ) as resp:
            return json.loads(resp.read().decode())
    return json.loads(Path(source).read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", required=True, help="leaderboard JSON file or URL (all columns)")
    ap.add_argument(
        "--token", default=os.environ.get("CRUCIBLE_TOKEN", ""), help="API token (URL boards)"
    )
    ap.add_argument("--out", default="safety_compare.html")
    args = ap.parse_args()
    board = _read(args.board, args.token)
    try:
        figure = leaderboard_comparison(board)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    figure.write_html(args.out, include_plotlyjs=True)
    print(f"wrote {args.out}: {len(board.get('rows', []))} leaderboard rows")


if __name__ == "__main__":
    main()
