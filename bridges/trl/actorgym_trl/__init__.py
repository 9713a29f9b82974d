"""actorgym's TRL bridge: a GRPOTrainer rollout_func over actorgym's rollout service (bridges/trl/README.md)."""
from .policy_server import PolicyServer
from .records import order_by_prompt, split_record
from .rewards import env_reward
from .rollout_client import RolloutServiceError, stream_rollouts
from .rollout_func import ActorgymRollouts
from .vllm_colocate import VllmColocateSampler
from .weights_lock import WeightsLock

__all__ = ["ActorgymRollouts", "env_reward", "PolicyServer", "WeightsLock", "stream_rollouts", "RolloutServiceError",
           "split_record", "order_by_prompt", "VllmColocateSampler"]
