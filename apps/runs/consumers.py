"""Live run events over a websocket: stored backlog first, then live, each event once.

The client connects to /ws/runs/<id>/?after=<last seq it has>. The consumer always reads
from the event store; channel-layer messages (channels-redis) and a short poll (needed in the
embedded profile, where the in-memory layer cannot cross processes) only wake it up.
"""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from apps.runs.events import events_after, run_group
from apps.runs.models import Run
from apps.runs.selectors import run_can_view


class RunConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self):
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        user = self.scope.get("user")
        if not await self._allowed(user):
            await self.close(code=4403)
            return
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            self.last_seq = max(int(query.get("after", ["0"])[0]), 0)
        except ValueError:
            self.last_seq = 0
        self.group = run_group(self.run_id)
        self._lock = asyncio.Lock()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self._pump()
        self._poller = asyncio.create_task(self._poll())

    async def disconnect(self, code):
        poller = getattr(self, "_poller", None)
        if poller:
            poller.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    @database_sync_to_async
    def _allowed(self, user) -> bool:
        run = Run.objects.filter(pk=self.run_id).first()
        return run is not None and run_can_view(user, run)

    async def _poll(self):
        try:
            while True:
                await asyncio.sleep(settings.CRUCIBLE_EVENT_POLL_SECONDS)
                await self._pump()
        except asyncio.CancelledError:
            pass

    async def _pump(self):
        """Send every stored event after last_seq, in order. The lock keeps a wake-up and the
        poll from sending the same events twice."""
        async with self._lock:
            while True:
                batch = await database_sync_to_async(events_after)(
                    run_id=self.run_id, after=self.last_seq, limit=2000
                )
                if not batch:
                    return
                for event in batch:
                    await self.send_json(event)
                    self.last_seq = event["seq"]
                if len(batch) < 2000:
                    return

    async def run_wake(self, message):
        await self._pump()

    async def receive_json(self, content, **kwargs):
        # Clients only listen; a ping keeps proxies from closing idle sockets.
        if content.get("type") == "ping":
            await self.send_json({"type": "pong", "seq": self.last_seq})
