from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.pools import services
from apps.pools.models import WorkerPool
from apps.pools.selectors import pools_overview


@staff_member_required
def pools_page(request):
    return render(request, "pools/pools.html", {"pools": pools_overview()})


@staff_member_required
@require_POST
def pool_action(request, name: str, action: str):
    pool = get_object_or_404(WorkerPool, name=name)
    handlers = {
        "pause": services.pool_pause,
        "resume": services.pool_resume,
        "drain": services.pool_drain,
    }
    if action not in handlers:
        messages.error(request, f"unknown action {action!r}")
    else:
        handlers[action](pool=pool)
        messages.success(request, f"pool {name}: {action}")
    return redirect("pools")
