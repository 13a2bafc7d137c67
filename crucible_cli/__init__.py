"""`crucible`: the command-line client of the Crucible REST API."""
