"""Maintenance of the pre-aggregated leaderboard cells (models.BoardCell).

Consistency rule: every transaction that adds SummaryMetric rows of succeeded runs first takes
the benchmark's BoardState row lock (`cells_lock`), then increments the cells (`cells_add`) in
the same transaction; a rebuild takes the same lock, so under READ COMMITTED it either sees a
finisher's rows (it waited for its commit) or the finisher increments after the rebuild
committed. Anything else that changes which runs count (a run deleted, or saved by hand, e.g.
in the admin) marks the board stale through the signals in apps.py, and the next read rebuilds.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from apps.leaderboards.models import BoardCell, BoardState
from apps.runs.models import Run, RunStatus, SummaryMetric

# The cell with this key counts a row's runs (one per run with any summary): it says the row
# exists even where the sort metric is missing, and lets a board rank and count its rows from
# two cells per row instead of every metric's. Summary keys are never empty.
ROW_KEY = ""
# The columns of the cells' unique constraint, in its order: the ON CONFLICT target of the
# increment and the grouping of the rebuild must be exactly these.
KEY = tuple(
    BoardCell._meta.get_field(name).column
    for name in next(c for c in BoardCell._meta.constraints if c.name == "board_cell_unique").fields
)
SUMS = ("n", "n_values", "total", "total_sq")


def cells_lock(benchmark_id: int) -> bool:
    """Lock the benchmark's board for this transaction. Returns False when the board is not
    built (or stale): then there is nothing to increment, the next read rebuilds it."""
    # A benchmark's first board starts fresh (and empty) if no summary row exists yet: every
    # writer of summary rows passes through here first, so none can be missed.
    stale = (
        BoardState.objects.select_for_update()
        .filter(benchmark_id=benchmark_id)
        .values_list("stale", flat=True)
        .first()
    )
    if stale is None:  # first summary of this benchmark, or cells from before they existed
        state, _ = BoardState.objects.get_or_create(
            benchmark_id=benchmark_id,
            defaults={"stale": SummaryMetric.objects.filter(benchmark_id=benchmark_id).exists()},
        )
        stale = (
            BoardState.objects.select_for_update().values_list("stale", flat=True).get(pk=state.pk)
        )
    return not stale


def cells_add(run: Run, summary: dict[str, float | None]) -> None:
    """Add one succeeded run's summary to its row's cells (one upsert statement)."""
    if not summary or run.is_chunk:
        return
    table = BoardCell._meta.db_table
    columns = (*KEY, *SUMS, "last_run")
    base = (run.benchmark_id, run.method_id, run.model_id or 0, run.config_hash)
    bucket = (run.visibility, run.team_id or 0, run.owner_id or 0)
    values = [(*base, ROW_KEY, *bucket, 1, 1, 0.0, 0.0, run.pk)]
    for key, value in summary.items():
        present = value is not None
        values.append(
            (
                *base,
                key,
                *bucket,
                1,
                int(present),
                value if present else 0.0,
                value * value if present else 0.0,
                run.pk,
            )
        )
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    updates = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in SUMS)
    sql = (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join([row] * len(values))} "
        f"ON CONFLICT ({', '.join(KEY)}) DO UPDATE SET {updates}, last_run = CASE WHEN excluded.last_run > "
        f"{table}.last_run THEN excluded.last_run ELSE {table}.last_run END"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [v for row_values in values for v in row_values])


def aggregates_rebuild(benchmark_id: int | None = None) -> None:
    """Recompute the cells of one benchmark (or all) from the SummaryMetric rows, in SQL."""
    ids = (
        [benchmark_id]
        if benchmark_id is not None
        else list(SummaryMetric.objects.values_list("benchmark_id", flat=True).distinct())
    )
    for bid in ids:
        _rebuild_one(bid)


@transaction.atomic
def _rebuild_one(benchmark_id: int) -> None:
    state, _ = BoardState.objects.get_or_create(benchmark_id=benchmark_id)
    BoardState.objects.select_for_update().filter(pk=state.pk).first()
    BoardCell.objects.filter(benchmark_id=benchmark_id).delete()
    cells, sm, runs = BoardCell._meta.db_table, SummaryMetric._meta.db_table, Run._meta.db_table
    sql = (
        f"INSERT INTO {cells} ({', '.join(KEY)}, n, n_values, total, total_sq, last_run) "
        f"SELECT s.benchmark_id, r.method_id, COALESCE(r.model_id, 0), r.config_hash, s.key, r.visibility, "
        f"COALESCE(r.team_id, 0), COALESCE(r.owner_id, 0), COUNT(*), COUNT(s.value), COALESCE(SUM(s.value), 0), "
        f"COALESCE(SUM(s.value * s.value), 0), MAX(s.run_id) "
        f"FROM {sm} s JOIN {runs} r ON r.id = s.run_id "
        f"WHERE s.benchmark_id = %s AND r.status = %s AND r.is_chunk = %s "
        f"GROUP BY s.benchmark_id, r.method_id, COALESCE(r.model_id, 0), r.config_hash, s.key, r.visibility, "
        f"COALESCE(r.team_id, 0), COALESCE(r.owner_id, 0) "
        # a row's cells land next to each other on disk: a page of 100 rows reads ~100 blocks
        f"ORDER BY r.config_hash"
    )
    rows_sql = (
        f"INSERT INTO {cells} ({', '.join(KEY)}, n, n_values, total, total_sq, last_run) "
        f"SELECT r.benchmark_id, r.method_id, COALESCE(r.model_id, 0), r.config_hash, %s, r.visibility, "
        f"COALESCE(r.team_id, 0), COALESCE(r.owner_id, 0), COUNT(*), COUNT(*), 0, 0, MAX(r.id) "
        f"FROM {runs} r WHERE r.benchmark_id = %s AND r.status = %s AND r.is_chunk = %s "
        f"AND EXISTS (SELECT 1 FROM {sm} s WHERE s.run_id = r.id) "
        f"GROUP BY r.benchmark_id, r.method_id, COALESCE(r.model_id, 0), r.config_hash, r.visibility, "
        f"COALESCE(r.team_id, 0), COALESCE(r.owner_id, 0)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [benchmark_id, RunStatus.SUCCEEDED, False])
        cursor.execute(rows_sql, [ROW_KEY, benchmark_id, RunStatus.SUCCEEDED, False])
        if connection.vendor == "postgresql":
            cursor.execute(
                f"ANALYZE {cells}"
            )  # fresh statistics: the planner then hashes, not sorts
    BoardState.objects.filter(pk=state.pk).update(stale=False, rebuilt_at=timezone.now())


def board_ensure_fresh(benchmark_id: int) -> None:
    """Before reading: rebuild if the board was never built or was marked stale."""
    if not BoardState.objects.filter(benchmark_id=benchmark_id, stale=False).exists():
        _rebuild_one(benchmark_id)


def board_mark_stale(benchmark_id: int) -> None:
    BoardState.objects.filter(benchmark_id=benchmark_id).update(stale=True)


# -- signals (connected in apps.py) ----------------------------------------------------------
def on_run_deleted(sender, instance: Run, **kwargs) -> None:
    if instance.status == RunStatus.SUCCEEDED:
        board_mark_stale(instance.benchmark_id)


def on_run_saved(sender, instance: Run, created: bool, **kwargs) -> None:
    # The platform writes finished runs with update() (no signal) and increments the cells
    # itself; a save() of a succeeded run is a hand edit (admin: visibility, team, status...).
    if instance.status == RunStatus.SUCCEEDED and not created:
        board_mark_stale(instance.benchmark_id)
