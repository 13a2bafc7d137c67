"""Execution-side helpers that plugins may use: devices, cancellation, sandboxing."""
