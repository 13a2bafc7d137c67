from django.conf import settings


def site(request):
    return {"crucible_profile": settings.PROFILE}
