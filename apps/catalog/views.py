from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from apps.catalog import selectors, services
from apps.catalog.models import Paper
from apps.catalog.reproduction import reproduction_rows


@login_required
def papers(request):
    rows = {row["paper"].key: row for row in reproduction_rows()}
    papers = list(Paper.objects.prefetch_related("methods", "benchmarks").order_by("year", "title"))
    return render(
        request,
        "catalog/papers.html",
        {
            "papers": [(p, rows[p.key]) for p in papers if p.key in rows],
            "baseline_papers": [p for p in papers if p.key not in rows],
        },
    )


@login_required
def datasets(request):
    if request.method == "POST":
        try:
            if request.FILES.get("file"):
                services.dataset_version_create_upload(
                    name=request.POST.get("name", ""),
                    user=request.user,
                    uploaded=request.FILES["file"],
                    description=request.POST.get("description", ""),
                )
            elif request.POST.get("url"):
                services.dataset_version_create_url(
                    name=request.POST.get("name", ""),
                    user=request.user,
                    url=request.POST["url"],
                    sha256=request.POST.get("sha256", ""),
                    description=request.POST.get("description", ""),
                )
            else:
                raise ValidationError({"file": "choose a file or give a URL with its SHA-256"})
            messages.success(request, "Dataset version registered.")
            return redirect("datasets")
        except ValidationError as exc:
            for field, errs in exc.message_dict.items():
                messages.error(request, f"{field}: {'; '.join(errs)}")
    return render(
        request,
        "catalog/datasets.html",
        {"datasets": selectors.datasets_visible(request.user).order_by("name")},
    )


@login_required
def models(request):
    return render(
        request,
        "catalog/models.html",
        {"models": selectors.models_visible(request.user).order_by("name")},
    )
