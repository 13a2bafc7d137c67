#!/usr/bin/env python
"""Django's command-line utility. Puts platform/ on sys.path (it is not a package; see DESIGN.md)."""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT / "platform"), str(ROOT)]


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "crucible.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
