"""REST API of Dynamic Live Surveys (mounted at /api/surveys/)."""

urlpatterns: list = []
