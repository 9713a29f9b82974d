"""The lock between sampling and the optimizer: no reply is sampled while the weights are being stepped.

Generation reads the trainer's parameters in place (no copy), so an optimizer step in the middle of
a reply would give that reply ids from two different models. The policy server holds the lock for
each reply; this callback holds it from just before `optimizer.step()` until just after (the
`on_pre_optimizer_step` / `on_optimizer_step` events of transformers' Trainer). Forward and backward
passes do not change the weights, so they may overlap sampling.
"""
from __future__ import annotations

import threading

from transformers import TrainerCallback


class WeightsLock(TrainerCallback):
    """A TrainerCallback that owns the lock; `with lock.sampling():` around each reply."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.optimizer_steps = 0

    def sampling(self) -> threading.Lock:
        return self._lock

    def on_pre_optimizer_step(self, args, state, control, **kwargs):
        self._lock.acquire()

    def on_optimizer_step(self, args, state, control, **kwargs):
        self.optimizer_steps += 1
        self._lock.release()
