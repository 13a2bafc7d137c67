from django.urls import path

from apps.leaderboards.consumers import LeaderboardConsumer
from apps.runs.consumers import RunConsumer

websocket_urlpatterns = [
    path("ws/runs/<int:run_id>/", RunConsumer.as_asgi()),
    path("ws/leaderboards/<slug:benchmark>/", LeaderboardConsumer.as_asgi()),
]
