"""LLM methods for STARK in text and code mode (STARK's own prompts and interaction loops)."""

from workers.methods.stark_llm.plugin import StarkLLMCode, StarkLLMText  # registers the methods

__all__ = ["StarkLLMCode", "StarkLLMText"]
