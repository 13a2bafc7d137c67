"""Leaderboard live updates: tells a page to refresh when a run of the benchmark finishes."""

from __future__ import annotations

import asyncio

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from apps.catalog.models import Benchmark
from apps.runs.events import benchmark_group


class LeaderboardConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.benchmark = self.scope["url_route"]["kwargs"]["benchmark"]
        self.version = await self._version()
        if self.version is None:
            await self.close(code=4404)
            return
        self.group = benchmark_group(self.benchmark)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "leaderboard.version", "version": self.version})
        self._poller = asyncio.create_task(self._poll())

    async def disconnect(self, code):
        if getattr(self, "_poller", None):
            self._poller.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    @database_sync_to_async
    def _version(self):
        return (
            Benchmark.objects.filter(name=self.benchmark)
            .values_list("results_version", flat=True)
            .first()
        )

    async def _check(self):
        version = await self._version()
        if version is not None and version != self.version:
            self.version = version
            await self.send_json({"type": "leaderboard.changed", "version": version})

    async def _poll(self):
        try:
            while True:
                await asyncio.sleep(settings.CRUCIBLE_EVENT_POLL_SECONDS)
                await self._check()
        except asyncio.CancelledError:
            pass

    async def leaderboard_wake(self, message):
        await self._check()
