"""The `cash` benchmark: model-class selection for HPO as a max k-armed bandit."""

from workers.benchmarks.cash.arms import ArmSet
from workers.benchmarks.cash.benchmark import CashBenchmark, CashConfig
from workers.benchmarks.cash.policy import BanditPolicy, minmax_rescale
from workers.benchmarks.cash.regret import normalized_regret

__all__ = [
    "ArmSet",
    "BanditPolicy",
    "CashBenchmark",
    "CashConfig",
    "minmax_rescale",
    "normalized_regret",
]
