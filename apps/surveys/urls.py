"""Pages of Dynamic Live Surveys (mounted at /surveys/)."""

urlpatterns: list = []
