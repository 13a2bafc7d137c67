"""Model adapters: how runs talk to LLMs and other registered models."""
