"""One-shot setup: migrate, register plugins, create the admin account (password printed once)."""

import os
import secrets

from django.core.management import call_command
from django.core.management.base import BaseCommand

from apps.accounts.models import User
from apps.accounts.services import user_create


class Command(BaseCommand):
    help = "Migrate, sync plugins and ensure an admin user exists (CRUCIBLE_ADMIN_PASSWORD or a printed one)."

    def handle(self, *args, **options):
        call_command("migrate", interactive=False, verbosity=0)
        call_command("crucible_sync")
        username = os.environ.get("CRUCIBLE_ADMIN_USER", "admin")
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"admin account '{username}' exists")
            return
        password = os.environ.get("CRUCIBLE_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        user_create(username=username, password=password, is_staff=True, is_superuser=True)
        shown = (
            "(from CRUCIBLE_ADMIN_PASSWORD)"
            if os.environ.get("CRUCIBLE_ADMIN_PASSWORD")
            else password
        )
        self.stdout.write(
            self.style.SUCCESS(f"created admin account: user '{username}', password {shown}")
        )
