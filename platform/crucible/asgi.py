"""ASGI entry point: HTTP through Django, websockets through Channels."""

import os
import sys
from pathlib import Path

_here = Path(__file__).resolve().parent
sys.path[:0] = [str(_here.parent), str(_here.parent.parent)]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

# Import every plugin now (torch, transformers, ...: seconds) rather than inside the first
# request that validates a run configuration.
from workers.core.registry import discover  # noqa: E402

discover()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from crucible.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
