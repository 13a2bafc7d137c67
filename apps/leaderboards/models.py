"""Pre-aggregated leaderboards: running sums per (row, metric, visibility bucket).

A leaderboard row is (method, model, configuration); its cell for a metric is the mean over
seeds with a 95% CI, which needs only n, sum and sum of squares. Those are additive, so they are
kept per *visibility bucket* (visibility, team, owner): a viewer's board sums the buckets they
may see, which is exactly the set of runs `visible_q` admits. Cells are incremented in the
transaction that records a finished run (apps.runs.services.run_finish) and rebuilt from the
SummaryMetric rows when a board is marked stale (a run deleted or edited; see aggregates.py).
"""

from __future__ import annotations

from django.db import models


class BoardCell(models.Model):
    benchmark = models.ForeignKey("catalog.Benchmark", on_delete=models.CASCADE, related_name="+")
    method = models.ForeignKey("catalog.Method", on_delete=models.CASCADE, related_name="+")
    # Plain ids, 0 for "none", so the unique key below has no NULLs (NULLs never conflict).
    model_pk = models.BigIntegerField(default=0)
    config_hash = models.CharField(max_length=16)
    key = models.CharField(max_length=100)
    visibility = models.CharField(max_length=10)
    team_pk = models.BigIntegerField(default=0)
    owner_pk = models.BigIntegerField(default=0)
    n = models.BigIntegerField(
        default=0, help_text="summary rows, null values included (the board's n)"
    )
    n_values = models.BigIntegerField(default=0, help_text="non-null values")
    total = models.FloatField(default=0.0)
    total_sq = models.FloatField(default=0.0)
    last_run = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "benchmark",
                    "method",
                    "model_pk",
                    "config_hash",
                    "key",
                    "visibility",
                    "team_pk",
                    "owner_pk",
                ],
                name="board_cell_unique",
            )
        ]
        indexes = [
            models.Index(fields=["benchmark", "key"]),
            models.Index(fields=["benchmark", "config_hash"]),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark_id}/{self.method_id}/{self.config_hash}/{self.key}"


class BoardState(models.Model):
    """One per benchmark: `stale` means the cells must be rebuilt before they are read. Its row
    lock also orders a rebuild against concurrent increments (aggregates.py)."""

    benchmark = models.OneToOneField(
        "catalog.Benchmark", on_delete=models.CASCADE, related_name="+"
    )
    stale = models.BooleanField(default=True)
    rebuilt_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"board {self.benchmark_id}{' (stale)' if self.stale else ''}"
