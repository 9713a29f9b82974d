"""Stand-in for verl/experimental/agent_loop/agent_loop.py at verl b178a3cd56f58b2d502255daba591e92833930a7.

Only the names the bridge imports, with verl's signatures, field names, types and defaults:
AgentLoopMetrics, AgentLoopOutput (pydantic BaseModels in verl, checked by hand here so the check
needs no pydantic), DictConfigWrap, AgentLoopBase.__init__ (the attributes it sets), register and
its registry, and AsyncLLMServerManager.generate's signature (the test passes its own scripted one).
"""

import asyncio
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Optional

from verl.workers.rollout.replica import TokenOutput


@dataclass
class AgentLoopMetrics:
    generate_sequences: float = 0.0
    tool_calls: float = 0.0
    num_preempted: int = -1


def _int_list(name: str, value: Any) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError(f"AgentLoopOutput.{name} must be list[int], got {type(value).__name__}")
    return value


@dataclass
class AgentLoopOutput:
    prompt_ids: list[int]
    response_ids: list[int]
    response_mask: list[int]
    metrics: AgentLoopMetrics
    response_logprobs: Optional[list[float]] = None
    routed_experts: Optional[Any] = None
    multi_modal_data: Optional[dict[str, Any]] = None
    reward_score: Optional[float] = None
    num_turns: int = 0
    extra_fields: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        # pydantic would coerce a dict into AgentLoopMetrics (verl's loops pass a dict).
        if isinstance(self.metrics, dict):
            self.metrics = AgentLoopMetrics(**self.metrics)
        if not isinstance(self.metrics, AgentLoopMetrics):
            raise TypeError("AgentLoopOutput.metrics must be AgentLoopMetrics or a dict of its fields")
        _int_list("prompt_ids", self.prompt_ids)
        _int_list("response_ids", self.response_ids)
        _int_list("response_mask", self.response_mask)
        if self.response_logprobs is not None and not all(isinstance(v, float) for v in self.response_logprobs):
            raise TypeError("AgentLoopOutput.response_logprobs must be list[float]")
        if self.reward_score is not None and not isinstance(self.reward_score, (int, float)):
            raise TypeError("AgentLoopOutput.reward_score must be a float")
        if not isinstance(self.num_turns, int):
            raise TypeError("AgentLoopOutput.num_turns must be an int")


class DictConfigWrap:
    def __init__(self, config):
        self.config = config


class AsyncLLMServerManager:
    async def generate(
        self,
        request_id,
        *,
        prompt_ids: list[int],
        sampling_params: dict[str, Any],
        image_data: Optional[list[Any]] = None,
        video_data: Optional[list[Any]] = None,
    ) -> TokenOutput:
        raise NotImplementedError("the stand-in's test passes a scripted server manager")


class AgentLoopBase(ABC):
    def __init__(self, trainer_config: DictConfigWrap, server_manager, tokenizer, processor, dataset_cls, dataset_config: DictConfigWrap, **kwargs):
        self.config = trainer_config.config
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.dataset_config = dataset_config.config
        self.apply_chat_template_kwargs = self.dataset_config.get("apply_chat_template_kwargs", {})
        self.loop = asyncio.get_event_loop()

    @abstractmethod
    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput:
        raise NotImplementedError


_agent_loop_registry: dict[str, dict] = {}


def register(agent_name: str):
    def decorator(subclass):
        fqdn = f"{subclass.__module__}.{subclass.__qualname__}"
        _agent_loop_registry[agent_name] = {"_target_": fqdn}
        return subclass

    return decorator
