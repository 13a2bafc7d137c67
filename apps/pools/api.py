from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.pools import services
from apps.pools.models import WorkerPool
from apps.pools.selectors import pools_overview


class WorkerStateSerializer(serializers.Serializer):
    hostname = serializers.CharField()
    pid = serializers.IntegerField()
    devices = serializers.ListField(child=serializers.DictField())
    concurrency = serializers.IntegerField()
    last_heartbeat = serializers.DateTimeField(allow_null=True)
    online = serializers.BooleanField()
    current_runs = serializers.ListField(child=serializers.IntegerField())


class PoolStateSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    paused = serializers.BooleanField()
    draining = serializers.BooleanField()
    queue = serializers.CharField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    online_workers = serializers.IntegerField()
    workers = WorkerStateSerializer(many=True)


class PoolListView(APIView):
    @extend_schema(responses={200: PoolStateSerializer(many=True)})
    def get(self, request):
        return Response(pools_overview())


class PoolActionView(APIView):
    required_scope = "admin"
    ACTIONS = {
        "pause": services.pool_pause,
        "resume": services.pool_resume,
        "drain": services.pool_drain,
    }

    @extend_schema(request=None, responses={200: PoolStateSerializer})
    def post(self, request, name: str, action: str):
        if action not in self.ACTIONS:
            raise serializers.ValidationError({"action": f"must be one of {sorted(self.ACTIONS)}"})
        pool = get_object_or_404(WorkerPool, name=name)
        self.ACTIONS[action](pool=pool)
        return Response(next(p for p in pools_overview() if p["name"] == name))
