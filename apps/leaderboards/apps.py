from django.apps import AppConfig


class LeaderboardsConfig(AppConfig):
    name = "apps.leaderboards"
    label = "leaderboards"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from apps.leaderboards import aggregates
        from apps.runs.models import Run

        post_delete.connect(aggregates.on_run_deleted, sender=Run, dispatch_uid="board-run-deleted")
        post_save.connect(aggregates.on_run_saved, sender=Run, dispatch_uid="board-run-saved")
