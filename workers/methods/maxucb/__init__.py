"""MaxUCB (Balef, Vernade, Eggensperger 2025): the policy and its `cash` method plugin."""

from workers.methods.maxucb.plugin import MaxUCBMethod
from workers.methods.maxucb.policy import MaxUCB

__all__ = ["MaxUCB", "MaxUCBMethod"]
