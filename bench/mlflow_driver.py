"""Drive an MLflow tracking store with bench/ingest_generator.py through MLflow's own client
(`MlflowClient.log_batch`). Runs inside the separate MLflow virtualenv, started by
bench/ingest_compare.py; prints one JSON line with the run id and the elapsed seconds.

    var/mlflow-venv/bin/python bench/mlflow_driver.py --uri http://127.0.0.1:5000 --points 200000
    var/mlflow-venv/bin/python bench/mlflow_driver.py --uri postgresql://postgres@127.0.0.1/x --points 200000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest_generator import steps_in_batches  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument(
        "--uri", required=True, help="tracking URI: the server's http URL or the database URL"
    )
    p.add_argument("--points", type=int, default=200_000)
    p.add_argument("--keys", type=int, default=4)
    p.add_argument(
        "--batch", type=int, default=1000, help="metrics per log_batch call (MLflow allows 1000)"
    )
    p.add_argument("--experiment", default="ingest-bench")
    args = p.parse_args()

    from mlflow.entities import Metric
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=args.uri)
    exp = client.get_experiment_by_name(args.experiment)
    exp_id = exp.experiment_id if exp else client.create_experiment(args.experiment)
    run = client.create_run(exp_id)
    run_id = run.info.run_id
    timestamp = int(time.time() * 1000)
    start = time.perf_counter()
    calls = 0
    for batch in steps_in_batches(args.points, args.keys, args.batch):
        metrics = [
            Metric(key, val, timestamp, step)
            for step, values in batch
            for key, val in values.items()
        ]
        client.log_batch(run_id, metrics=metrics)
        calls += 1
    elapsed = time.perf_counter() - start
    client.set_terminated(run_id)
    print(json.dumps({"run_id": run_id, "seconds": elapsed, "calls": calls}))


if __name__ == "__main__":
    main()
