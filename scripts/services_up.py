"""Check (and with --start, start) the PostgreSQL and Redis the services tests use.

Exit 0 when both answer. --start runs the Debian start commands of this machine kind when a
service is down (it does nothing where those commands do not exist).
"""

from __future__ import annotations

import argparse
import glob
import os
import socket
import subprocess
import sys
import time
from urllib.parse import urlparse


def reachable(url: str) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection(
            (parsed.hostname or "127.0.0.1", parsed.port or 0), timeout=2
        ):
            return True
    except OSError:
        return False


def start_postgres() -> None:
    versions = [os.path.basename(p) for p in glob.glob("/etc/postgresql/*")]
    for version in versions:
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"], check=False
        )


def start_redis() -> None:
    subprocess.run(
        [
            "redis-server",
            "--daemonize",
            "yes",
            "--bind",
            "127.0.0.1",
            "-::1",
            "--port",
            "6379",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            "/var/lib/redis",
            "--logfile",
            "/var/log/redis/ci.log",
        ],
        check=False,
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="only check")
    parser.add_argument("--start", action="store_true", help="start what is down")
    parser.add_argument("pg_url")
    parser.add_argument("redis_url")
    args = parser.parse_args()
    if args.start:
        if not reachable(args.pg_url):
            start_postgres()
        if not reachable(args.redis_url):
            start_redis()
        for _ in range(60):
            if reachable(args.pg_url) and reachable(args.redis_url):
                break
            time.sleep(0.5)
    ok = reachable(args.pg_url) and reachable(args.redis_url)
    if not ok:
        print(
            f"postgres {args.pg_url}: {reachable(args.pg_url)}, redis {args.redis_url}: {reachable(args.redis_url)}",
            file=sys.stderr,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
