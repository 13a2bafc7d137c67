"""SinkGD / SWAN stateless optimizers (optim) and their lm_pretrain methods (plugin)."""

from workers.methods.sinkgd import plugin  # noqa: F401  (registers the methods)
