"""Helpers for the project's small language models: corpus, tokenizer, training, evaluation.

Kept import-light: `workers.models.base.build_adapter` imports every module under
`workers.models`, so nothing heavy happens here.
"""
