"""crucible: submit and follow runs, read leaderboards, from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from crucible_cli.client import ApiError, Client, load_config, save_config

TERMINAL = {"succeeded", "failed", "cancelled"}


def parse_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def parse_sets(pairs: list[str]) -> tuple[dict, dict]:
    """--set benchmark.horizon=50 --set method.alpha=0.5 -> (benchmark_config, method_config)."""
    bench, method = {}, {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        section, dot, field = key.partition(".")
        if not sep or not dot or section not in ("benchmark", "method") or not field:
            raise SystemExit(
                f"--set expects benchmark.<field>=<value> or method.<field>=<value>, got {pair!r}"
            )
        (bench if section == "benchmark" else method)[field] = parse_value(value)
    return bench, method


def table(rows: list[list[Any]], header: list[str]) -> str:
    cells = [header] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)


def cmd_login(client: Client, args) -> None:
    client.session.headers["Authorization"] = f"Bearer {args.token}"
    client.base = args.url.rstrip("/")
    client.get("/api/benchmarks/", page_size=1)
    print(f"token works; saved to {save_config(args.url, args.token)}")


def cmd_benchmarks(client: Client, args) -> None:
    data = client.get("/api/benchmarks/", page_size=500)["results"]
    rows = [
        [
            b["name"],
            next(
                (
                    m["name"] + (" ↑" if m["goal"] == "max" else " ↓")
                    for m in b["metrics"]
                    if m["primary"]
                ),
                "",
            ),
            ", ".join(b["methods"]),
        ]
        for b in data
    ]
    print(table(rows, ["benchmark", "primary metric", "methods"]))


def cmd_submit(client: Client, args) -> None:
    bench_cfg, method_cfg = parse_sets(args.set or [])
    if args.config:
        loaded = json.loads(open(args.config).read())
        bench_cfg = {**loaded.get("benchmark_config", {}), **bench_cfg}
        method_cfg = {**loaded.get("method_config", {}), **method_cfg}
    body = {
        "benchmark": args.benchmark,
        "method": args.method,
        "benchmark_config": bench_cfg,
        "method_config": method_cfg,
        "model": args.model,
        "pool": args.pool,
        "name": args.name or "",
    }
    seeds = [int(s) for s in args.seeds.split(",")] if args.seeds else None
    if seeds and len(seeds) > 1 or args.grid:
        body.update(seeds=seeds or [args.seed], grid=json.loads(args.grid) if args.grid else {})
        sweep = client.post("/api/sweeps/", body)
        print(f"sweep {sweep['id']}: runs {', '.join(map(str, sweep['runs']))}")
        run_ids = sweep["runs"]
    else:
        body["seed"] = seeds[0] if seeds else args.seed
        run = client.post("/api/runs/", body)
        print(f"run {run['id']} {run['status']}")
        run_ids = [run["id"]]
    if args.wait:
        statuses = [wait_for(client, rid) for rid in run_ids]
        if any(s != "succeeded" for s in statuses):
            raise SystemExit(1)


def wait_for(client: Client, run_id: int, poll: float = 1.0) -> str:
    while True:
        run = client.get(f"/api/runs/{run_id}/")
        if run["status"] in TERMINAL:
            print(
                f"run {run_id} {run['status']} {json.dumps(run['summary']) if run['summary'] else run['status_reason']}"
            )
            return run["status"]
        time.sleep(poll)


def cmd_runs(client: Client, args) -> None:
    data = client.get(
        "/api/runs/",
        benchmark=args.benchmark,
        method=args.method,
        status=args.status,
        page_size=args.limit,
    )["results"]
    rows = [
        [
            r["id"],
            r["benchmark"],
            r["method"],
            r["seed"],
            r["status"],
            f"{r['progress_percent']:.0f}%",
            r["created_at"][:19],
        ]
        for r in data
    ]
    print(table(rows, ["id", "benchmark", "method", "seed", "status", "progress", "created"]))


def cmd_show(client: Client, args) -> None:
    print(json.dumps(client.get(f"/api/runs/{args.run}/"), indent=2))


def cmd_logs(client: Client, args) -> None:
    """Print log lines; with --follow, stream events until the run finishes."""
    after = 0
    while True:
        events = client.get(f"/api/runs/{args.run}/events/", after=after)
        for event in events:
            after = event["seq"]
            if event["kind"] == "log":
                for line in event["data"]["lines"]:
                    print(line, flush=True)
            elif event["kind"] == "status" and args.follow:
                print(f"[{event['data']['status']}] {event['data'].get('reason', '')}", flush=True)
                if event["data"]["status"] in TERMINAL:
                    return
        if not args.follow:
            return
        if not events:
            time.sleep(args.interval)


def cmd_cancel(client: Client, args) -> None:
    print(f"run {args.run}: {client.post(f'/api/runs/{args.run}/cancel/')['status']}")


def cmd_retry(client: Client, args) -> None:
    print(f"run {args.run} retried as run {client.post(f'/api/runs/{args.run}/retry/')['id']}")


def cmd_leaderboard(client: Client, args) -> None:
    if args.csv:
        sys.stdout.write(client.get(f"/api/leaderboards/{args.benchmark}/", export="csv"))
        return
    board = client.get(f"/api/leaderboards/{args.benchmark}/", sort=args.sort)
    names = [m["name"] for m in board["metrics"]]
    header = ["#", "method", "model", "seeds"] + [
        n + (" ↑" if m["goal"] == "max" else " ↓")
        for n, m in zip(names, board["metrics"], strict=True)
    ]
    rows = []
    for r in board["rows"]:
        cells = [r["rank"], r["method"], r["model"] or "", r["seeds"]]
        for n in names:
            m = r["metrics"].get(n) or {}
            cells.append(
                ""
                if m.get("mean") is None
                else f"{m['mean']:.4g}" + (f" ±{m['ci95']:.2g}" if m.get("ci95") else "")
            )
        rows.append(cells)
    print(table(rows, header))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crucible", description=__doc__)
    p.add_argument(
        "--url", help="server URL (default: config file, $CRUCIBLE_URL, http://127.0.0.1:8000)"
    )
    p.add_argument("--token", help="API token (default: config file or $CRUCIBLE_TOKEN)")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("login", help="check and store a URL and token")
    s.add_argument("url")
    s.add_argument("token")
    s.set_defaults(func=cmd_login)
    sub.add_parser("benchmarks", help="list benchmarks").set_defaults(func=cmd_benchmarks)
    s = sub.add_parser("submit", help="submit a run (or a sweep with --seeds/--grid)")
    s.add_argument("benchmark")
    s.add_argument("method")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--seeds", help="comma-separated seeds: a sweep")
    s.add_argument("--grid", help="JSON grid, e.g. '{\"method.alpha\": [0.25, 0.5]}'")
    s.add_argument("--set", action="append", metavar="SECTION.FIELD=VALUE")
    s.add_argument("--config", help="JSON file with benchmark_config / method_config")
    s.add_argument("--model")
    s.add_argument("--pool")
    s.add_argument("--name")
    s.add_argument(
        "--wait",
        action="store_true",
        help="wait until every run finishes; exit 1 unless all succeeded",
    )
    s.set_defaults(func=cmd_submit)
    s = sub.add_parser("runs", help="list runs")
    s.add_argument("--benchmark")
    s.add_argument("--method")
    s.add_argument("--status")
    s.add_argument("--limit", type=int, default=20)
    s.set_defaults(func=cmd_runs)
    for name, func, helptext in (
        ("show", cmd_show, "show a run as JSON"),
        ("cancel", cmd_cancel, "cancel a run"),
        ("retry", cmd_retry, "retry a finished run"),
    ):
        s = sub.add_parser(name, help=helptext)
        s.add_argument("run", type=int)
        s.set_defaults(func=func)
    s = sub.add_parser("logs", help="print a run's log lines")
    s.add_argument("run", type=int)
    s.add_argument("--follow", "-f", action="store_true")
    s.add_argument("--interval", type=float, default=0.5)
    s.set_defaults(func=cmd_logs)
    s = sub.add_parser("leaderboard", help="print a benchmark's leaderboard")
    s.add_argument("benchmark")
    s.add_argument("--sort")
    s.add_argument("--csv", action="store_true")
    s.set_defaults(func=cmd_leaderboard)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    config = load_config()
    client = Client(args.url or config["url"], args.token or config.get("token"))
    try:
        args.func(client, args)
    except ApiError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot reach {client.base}: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
