"""Cost of one wake-up on the channel layer (channels-redis), side by side in one run:
asgiref's async_to_sync(group_send) (a new event loop, hence a new Redis connection, per call;
what apps.runs.events.announce did) against apps.runs.events.announce (one kept loop per
process), with a bare Redis PING as the floor.

    REDIS_URL=redis://127.0.0.1:6379/13 .venv/bin/python -m bench.announce_cost --calls 500
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from bench.platform_common import bench_env, django_setup, machine_line


def per_call_ms(fn, calls: int) -> float:
    for _ in range(5):  # warm-up: imports, first connection
        fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return 1000 * (time.perf_counter() - start) / calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--calls", type=int, default=500)
    args = p.parse_args()
    if not os.environ.get("REDIS_URL"):
        p.error("REDIS_URL must be set (services profile)")
    os.environ.setdefault("DATABASE_URL", "sqlite:///" + tempfile.mktemp(suffix=".sqlite3"))
    bench_env(tempfile.mkdtemp(prefix="bench-announce-"))
    django_setup(migrate=False)
    import redis
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from apps.runs.events import announce

    layer = get_channel_layer()
    message = {"type": "run.wake", "seq": 1}
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    rows = [
        (
            "async_to_sync(layer.group_send) (before)",
            per_call_ms(lambda: async_to_sync(layer.group_send)("run.0", message), args.calls),
        ),
        (
            "events.announce (kept loop)",
            per_call_ms(lambda: announce("run.0", message), args.calls),
        ),
        ("redis PING (floor)", per_call_ms(client.ping, args.calls)),
    ]
    print(machine_line())
    print(f"{args.calls} calls each\n\n| wake-up path | ms per call | x kept loop |\n|---|---|---|")
    kept = rows[1][1]
    for label, ms in rows:
        print(f"| {label} | {ms:.2f} | {ms / kept:.1f} |")


if __name__ == "__main__":
    main()
