"""`ActorgymRollouts`: a GRPOTrainer `rollout_func` whose episodes run in actorgym's envs.

TRL calls `rollout_func(prompts, trainer)` with this process's slice of the generation batch, each
prompt already repeated `num_generations` times in a row (RepeatSampler), and wants one completion
per prompt back. Here a prompt is an actorgym task id (the dataset is a list of them); the bridge
posts one batch to the rollout service (the distinct tasks, `groupSize` = how often each appears),
reads the token records as they stream, and hands TRL each episode as prompt ids, completion ids,
log-probs and `env_mask` (records.py), plus `env_reward` for the reward function (rewards.py).

The policy endpoint: `policy_url` (vLLM, SGLang, … serving the model being trained), or, when it is
None, a `/v1/completions` server started inside this process on the first call, sampling from the
trainer's live model (policy_server.py) under a lock the optimizer step also takes (weights_lock.py).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import json
import urllib.request

from .policy_server import PolicyServer
from .records import order_by_prompt, split_record
from .rollout_client import stream_rollouts
from .vllm_colocate import VllmColocateSampler
from .weights_lock import WeightsLock

FIELDS = ("prompt_ids", "completion_ids", "logprobs", "env_mask", "env_reward", "env_outcome", "env_turns", "episode_id")


class ActorgymRollouts:
    """Pass an instance as `GRPOTrainer(rollout_func=...)` and `env_reward` (rewards.py) as a reward function."""

    def __init__(self, service_url: str, env: str, *, tokenizer_dir: str, policy_url: str | None = None,
                 policy_model: str | None = None, token: str | None = None, split: str = "train",
                 horizon: int | None = None, curriculum_schedule: str | None = None, concurrency: int | None = None,
                 max_tokens: int = 64, temperature: float | None = None, top_p: float | None = None,
                 seed: int = 0, policy_port: int = 0, timeout: float = 600.0, keep_records: bool = False) -> None:
        if horizon is not None and curriculum_schedule is not None:
            raise ValueError("horizon and curriculum_schedule: give one or neither (the service's curriculum sets the horizon)")
        self.service_url, self.env, self.tokenizer_dir = service_url, env, tokenizer_dir
        self.policy_url, self.policy_model, self.token, self.split = policy_url, policy_model, token, split
        self.horizon, self.curriculum_schedule, self.concurrency = horizon, curriculum_schedule, concurrency
        self.max_tokens, self.temperature, self.top_p = max_tokens, temperature, top_p
        self.seed, self.policy_port, self.timeout, self.keep_records = seed, policy_port, timeout, keep_records
        self.server: PolicyServer | None = None
        self.lock = WeightsLock()
        self.batches: list[dict[str, Any]] = []  # per call: the records' shapes, for logs and tests
        self.served = {"replies": 0, "sampledTokens": 0}  # the in-process server's counts, kept after close()

    def _start_policy(self, trainer) -> None:
        """No policy_url: TRL's vLLM server when the trainer uses one, else the in-process server (on vLLM colocate or PyTorch)."""
        generation = getattr(trainer, "vllm_generation", None) if getattr(trainer, "use_vllm", False) else None
        if generation is not None and generation.mode == "server":
            args = trainer.args  # TRL pushes the weights to this server before every rollout_func call
            base = args.vllm_server_base_url or f"http://{args.vllm_server_host}:{args.vllm_server_port}"
            self.policy_url = base.rstrip("/") + "/v1"
            return
        sampler = VllmColocateSampler(trainer) if generation is not None else None
        trainer.add_callback(self.lock)
        self.policy_model = self.policy_model or "trainer"
        self.server = PolicyServer(lambda: trainer.accelerator.unwrap_model(trainer.model), trainer.processing_class,
                                   self.lock.sampling(), model_name=self.policy_model, port=self.policy_port,
                                   default_max_tokens=self.max_tokens, sampler=sampler).start()

    def _policy(self, trainer) -> dict[str, Any]:
        if self.policy_url is None and self.server is None:
            self._start_policy(trainer)
        if self.policy_model is None:
            self.policy_model = _served_model(self.policy_url, self.timeout)
        temperature = self.temperature if self.temperature is not None else trainer.args.temperature
        top_p = self.top_p if self.top_p is not None else trainer.args.top_p
        policy = {"baseUrl": self.policy_url or self.server.base_url, "model": self.policy_model,
                  "tokenizer": f"hf:{self.tokenizer_dir}", "temperature": temperature, "maxTokens": self.max_tokens}
        if top_p is not None and top_p != 1.0:
            policy["topP"] = top_p  # the service refuses it for now (its token client sends no top_p): said at once
        return policy

    def _batch(self, tasks: list[str], group: int, trainer, policy: dict[str, Any]) -> dict[str, Any]:
        step = trainer.state.global_step
        batch: dict[str, Any] = {"env": self.env, "split": self.split, "tasks": tasks, "groupSize": group,
                                 "seed": self.seed + 100_003 * step + len(self.batches), "policy": policy}
        if self.horizon is not None:
            batch["horizon"] = self.horizon
        if self.curriculum_schedule is not None:
            batch["curriculum"] = {"schedule": self.curriculum_schedule, "step": step + 1}  # the schedules count from 1
        if self.concurrency is not None:
            batch["concurrency"] = self.concurrency
        return batch

    def __call__(self, prompts: list, trainer) -> dict[str, list]:
        tasks = [_task_id(p) for p in prompts]
        policy = self._policy(trainer)
        # One request per distinct repeat count (one in practice: every task appears num_generations times).
        by_count: dict[int, list[str]] = {}
        for task, count in Counter(tasks).items():
            by_count.setdefault(count, []).append(task)
        records = []
        for count, group_tasks in by_count.items():
            batch = self._batch(group_tasks, count, trainer, policy)
            records.extend(stream_rollouts(self.service_url, batch, token=self.token, timeout=self.timeout))
        ordered = order_by_prompt(tasks, records)
        rows = [split_record(r) for r in ordered]
        self.batches.append({"step": trainer.state.global_step, "episodes": [
            {k: (len(v) if isinstance(v, list) else v) for k, v in row.items()} | {"sampled": sum(row["env_mask"])}
            for row in rows], **({"records": ordered} if self.keep_records else {})})
        return {field: [row[field] for row in rows] for field in FIELDS}

    def close(self) -> None:
        if self.server is not None:
            self.served = {"replies": self.server.replies, "sampledTokens": self.server.sampled_tokens}
            self.server.close()
            self.server = None


def _served_model(base_url: str, timeout: float) -> str:
    """The first model an OpenAI-compatible endpoint lists (vLLM serves one), when policy_model is not given."""
    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=min(timeout, 30)) as response:
            return json.loads(response.read())["data"][0]["id"]
    except Exception as error:
        raise ValueError(f"policy_model: not given, and {base_url}/models did not name one ({error})") from None


def _task_id(prompt) -> str:
    if isinstance(prompt, str) and prompt.strip():
        return prompt.strip()
    raise ValueError(f"prompt: expected an actorgym task id (a string such as 'GoToRedBall/1000') in the dataset's "
                     f"`prompt` column, got {prompt!r}")
