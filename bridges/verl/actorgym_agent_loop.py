"""A verl agent loop that plays actorgym's environments: verl's rollout servers generate every turn,
actorgym's env servers (AgentGym HTTP protocol) step the env, and the loop returns verl's
AgentLoopOutput with the exact ids the model read and sampled.

Written against volcengine/verl at commit b178a3cd56f58b2d502255daba591e92833930a7 (2026-01-29),
verl/experimental/agent_loop/. Untested against a live verl: see README.md.

Register it in the file named by actor_rollout_ref.rollout.agent.agent_loop_config_path:

    - name: actorgym_agent
      _target_: actorgym_agent_loop.ActorgymAgentLoop
      env_urls: {babyai: "http://127.0.0.1:36001"}

and give each dataset row agent_name "actorgym_agent" and extra_info {"env": "babyai", "data_idx": N}
(or AgentGym-RL's item_id "babyai_N").
"""

import asyncio
import random
import re
from typing import Any, Optional
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

from actorgym_env_client import AgentGymHttpEnv, StepResult, read_action
from actorgym_token_conversation import TokenConversation

FORMAT_NOTE = "Invalid reply: end it with exactly one line `Action: <one of the available actions>`."


def _select(config: Any, dotted: str, default: Any) -> Any:
    """config.a.b.c for an OmegaConf DictConfig or any attribute tree; default when a key is absent or None."""
    node = config
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, dict) or hasattr(node, "get") else getattr(node, key, None)
        if node is None:
            return default
    return node


def task_of(extra_info: dict, kwargs: dict, default_env: Optional[str]) -> tuple[str, int]:
    """(env, task index) of a dataset row: extra_info env/data_idx, else an AgentGym-RL item_id `babyai_17`."""
    item_id = extra_info.get("item_id") or kwargs.get("item_id")
    env = extra_info.get("env") or kwargs.get("env") or default_env
    index = extra_info.get("data_idx", kwargs.get("data_idx"))
    if index is None and item_id:
        m = re.fullmatch(r"(.*?)_?(\d+)", str(item_id))
        if m is None:
            raise ValueError(f"item_id: {item_id!r} has no trailing task index")
        env = env or m.group(1)
        index = int(m.group(2))
    if env is None or index is None:
        raise ValueError("extra_info: a row needs env and data_idx (or an item_id like 'babyai_17')")
    return str(env), int(index)


def opening_messages(raw_prompt: Any, observation: str) -> list[dict]:
    """The dataset's prompt (instructions) with the env's first observation as the user turn."""
    messages = [dict(m) for m in list(raw_prompt if raw_prompt is not None else [])]
    if messages and messages[-1].get("role") == "user":
        messages[-1]["content"] = f"{messages[-1]['content']}\n\n{observation}"
    else:
        messages.append({"role": "user", "content": observation})
    return messages


class _Sequence:
    """The response side being built: ids, loss mask (1 sampled, 0 template/env) and log-probs."""

    def __init__(self):
        self.ids: list[int] = []
        self.mask: list[int] = []
        self.logprobs: list[float] = []

    def add(self, ids: list[int], sampled: bool, logprobs: Optional[list[float]] = None) -> None:
        self.ids += ids
        self.mask += [1 if sampled else 0] * len(ids)
        self.logprobs += [float(x) for x in logprobs] if logprobs is not None else [0.0] * len(ids)


@register("actorgym_agent")
class ActorgymAgentLoop(AgentLoopBase):
    def __init__(self, *args, env_urls: Optional[dict] = None, env: Optional[str] = None,
                 env_token: Optional[str] = None, max_turns: Optional[int] = None,
                 env_timeout: float = 60.0, stop_token_ids: Optional[list[int]] = None, **kwargs):
        super().__init__(*args, **kwargs)
        if not env_urls:
            raise ValueError("env_urls: give the AgentGym HTTP address of each env, e.g. {babyai: 'http://host:36001'}")
        # A list of servers per env spreads episodes over them (one per GPU node, say).
        self.env_urls = {k: ([v] if isinstance(v, str) else list(v)) for k, v in dict(env_urls).items()}
        self.default_env = env
        self.env_token = env_token
        self.env_timeout = env_timeout
        rollout = "actor_rollout_ref.rollout"
        self.response_length = int(_select(self.config, f"{rollout}.response_length", 4096))
        self.max_turns = int(max_turns or _select(self.config, f"{rollout}.multi_turn.max_assistant_turns", 0) or 20)
        self.stop_ids = set(stop_token_ids) if stop_token_ids else None

    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput:
        env_name, index = task_of(dict(kwargs.get("extra_info") or {}), kwargs, self.default_env)
        urls = self.env_urls.get(env_name)
        if not urls:
            raise ValueError(f"env_urls: no server for env {env_name!r} (have {sorted(self.env_urls)})")
        env = AgentGymHttpEnv(random.choice(urls), env_name, self.env_token, self.env_timeout)
        try:
            first = await asyncio.to_thread(env.reset, index)
            return await self._play(env, first, sampling_params, kwargs.get("raw_prompt"))
        finally:
            await asyncio.to_thread(env.close)

    async def _play(self, env: AgentGymHttpEnv, first: str, sampling_params: dict, raw_prompt: Any) -> AgentLoopOutput:
        convo = TokenConversation(self.tokenizer, self.apply_chat_template_kwargs, self.stop_ids)
        prompt_ids = convo.open(opening_messages(raw_prompt, first))
        seq, request_id = _Sequence(), uuid4().hex  # one request id: verl keeps the episode on one server
        turn_rewards: list[float] = []
        score: Optional[float] = None
        metrics: dict[str, Any] = {"generate_sequences": 0.0, "tool_calls": 0.0, "num_preempted": -1}
        user_turns, outcome = 0, "truncated"
        for turn in range(self.max_turns):
            # verl's server pops max_tokens from the dict it is given, so each turn gets its own copy.
            params = {**sampling_params, "max_tokens": self.response_length - len(seq.ids)}
            t0 = self.loop.time()
            out = await self.server_manager.generate(request_id=request_id, prompt_ids=prompt_ids + seq.ids, sampling_params=params)
            metrics["generate_sequences"] += self.loop.time() - t0
            if out.num_preempted is not None:
                metrics["num_preempted"] = max(metrics["num_preempted"], 0) + out.num_preempted
            seq.add(list(out.token_ids), True, out.log_probs)
            step = await self._act(env, convo.reply(list(out.token_ids)), metrics)
            turn_rewards.append(step.reward)
            score = step.score if step.score is not None else score
            if step.done:
                outcome = "success" if step.success or (step.success is None and step.reward > 0) else "failure"
                break
            if turn == self.max_turns - 1:
                break  # no reply follows: the response ends on the model's last token, where verl puts the reward
            added = convo.next(step.observation)
            if len(seq.ids) + len(added) >= self.response_length:
                break  # as verl's ToolAgentLoop: an observation that does not fit ends the episode
            seq.add(added, False)
            user_turns += 1
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=seq.ids[: self.response_length],
            response_mask=seq.mask[: self.response_length],
            response_logprobs=seq.logprobs[: self.response_length],
            # the env's episode score when it keeps one (BabyAI, SciWorld), else the rewards summed
            reward_score=float(score if score is not None else sum(turn_rewards)),
            num_turns=1 + len(turn_rewards) + user_turns,  # verl counts the opening user turn too
            metrics=metrics,
            extra_fields={"turn_scores": turn_rewards, "outcome": outcome, "env": env.env},
        )

    async def _act(self, env: AgentGymHttpEnv, reply: str, metrics: dict) -> StepResult:
        """Steps the env with the reply's action; a reply without one is a turn with a note, no env step."""
        action = read_action(env.env, reply)
        if action is None:
            return StepResult(observation=FORMAT_NOTE, reward=0.0, done=False)
        t0 = self.loop.time()
        step = await asyncio.to_thread(env.step, action)
        metrics["tool_calls"] += self.loop.time() - t0
        return step
