"""The reward function that hands GRPOTrainer the env's reward: rollout_func returns `env_reward` per completion
(the episode's total reward, as the env scored it), and TRL passes extra rollout fields to reward functions by name."""
from __future__ import annotations


def env_reward(completions, env_reward=None, **kwargs) -> list[float]:
    if env_reward is None:
        raise ValueError("env_reward: missing; use this reward function with ActorgymRollouts as the rollout_func")
    if len(env_reward) != len(completions):
        raise ValueError(f"env_reward: {len(env_reward)} rewards for {len(completions)} completions")
    return [float(r) for r in env_reward]
