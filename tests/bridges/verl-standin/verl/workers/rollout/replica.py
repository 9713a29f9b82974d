"""Stand-in for verl/workers/rollout/replica.py's TokenOutput at verl b178a3cd (a pydantic BaseModel there).

Field names, types and defaults as in verl; validated by hand so the check runs without pydantic.
"""

from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class TokenOutput:
    token_ids: list[int]
    """response token ids"""
    log_probs: Optional[list[float]] = None
    """logprobs of response token ids"""
    routed_experts: Optional[Any] = None
    """routed experts of response token ids"""
    stop_reason: Optional[str] = None
    """stop reason: 'completed', 'aborted', or None for unknown"""
    num_preempted: Optional[int] = None
    """number of preempted times for metric calculation"""

    def __post_init__(self):
        if not all(isinstance(t, int) for t in self.token_ids):
            raise TypeError("TokenOutput.token_ids must be a list of int")
        if self.log_probs is not None and len(self.log_probs) != len(self.token_ids):
            raise ValueError("TokenOutput.log_probs must have one entry per token id")
