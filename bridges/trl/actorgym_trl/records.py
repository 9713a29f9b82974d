"""Token records (docs/token-records.md) to the per-completion fields GRPOTrainer's rollout_func returns.

A record's `tokens` is the whole episode: the opening render (turn 0's `promptIds`), then each reply
and each env observation in turn. TRL wants one prompt and one completion per rollout, so:
prompt_ids = turns[0].promptIds; completion_ids = the rest of `tokens` (every reply and every
observation after the first); env_mask = the rest of `mask` (1 on sampled ids, 0 on the env's and
the template's); logprobs = the rest of `logProbs` (0 where env_mask is 0). TRL multiplies its loss
mask by env_mask (GRPOTrainer._generate pops `env_mask` into `tool_mask`), so only sampled ids are
trained on, and the env's ids are still in the sequence the model reads.
"""
from __future__ import annotations

from typing import Any


class RecordShapeError(ValueError):
    """A record whose fields do not line up; the message names the field and the episode."""


def split_record(record: dict[str, Any]) -> dict[str, Any]:
    """One record as {prompt_ids, completion_ids, env_mask, logprobs} plus the env's reward and outcome."""
    name = record.get("episodeId", "?")
    tokens, mask, logprobs = record["tokens"], record["mask"], record["logProbs"]
    if not (len(tokens) == len(mask) == len(logprobs)):
        raise RecordShapeError(f"episode {name}: tokens ({len(tokens)}), mask ({len(mask)}) and logProbs ({len(logprobs)}) differ in length")
    if record.get("windows"):
        raise RecordShapeError(f"episode {name}: `windows` (an episode past the model's context) has no single prompt/completion; raise the context or lower the horizon")
    turns = record["turns"]
    if not turns:
        raise RecordShapeError(f"episode {name}: turns is empty (no reply was sampled)")
    prompt = turns[0]["promptIds"]
    if tokens[: len(prompt)] != prompt:
        raise RecordShapeError(f"episode {name}: tokens do not start with turns[0].promptIds")
    cut = len(prompt)
    return {
        "prompt_ids": list(prompt),
        "completion_ids": tokens[cut:],
        "env_mask": mask[cut:],
        "logprobs": logprobs[cut:],
        "env_reward": float(record["reward"]),
        "env_outcome": record["outcome"],
        "env_turns": len(turns),
        "episode_id": name,
    }


def order_by_prompt(task_ids: list[str], records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records matched to the trainer's prompt slots: slot i gets a not-yet-used record of task_ids[i], in sample order."""
    by_task: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda r: (r["taskId"], r["sample"])):
        by_task.setdefault(record["taskId"], []).append(record)
    ordered = []
    for task in task_ids:
        pending = by_task.get(task)
        if not pending:
            raise RecordShapeError(f"task {task}: the rollout service returned fewer episodes than the trainer asked for")
        ordered.append(pending.pop(0))
    extra = sum(len(v) for v in by_task.values())
    if extra:
        raise RecordShapeError(f"the rollout service returned {extra} episode(s) more than the trainer asked for")
    return ordered
