"""Checks bridges/verl/actorgym_agent_loop.py without verl: stand-ins for verl's classes
(tests/bridges/verl-standin/, from verl b178a3cd), a scripted server manager in place of verl's
AsyncLLMServerManager, a real tokenizer with a chat template, and a real actorgym env server.

Usage: python verl-agent-loop-check.py ENV_URL TOKENIZER_DIR. Needs transformers only (no torch,
no pytest). Prints one JSON line of what it measured; exits 1 naming the first failed check.
"""

import asyncio
import json
import os
import sys
import urllib.request
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "verl-standin"), os.path.join(HERE, "..", "..", "bridges", "verl")]

from transformers import AutoTokenizer  # noqa: E402

from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, DictConfigWrap, _agent_loop_registry  # noqa: E402
from verl.workers.rollout.replica import TokenOutput  # noqa: E402

import actorgym_agent_loop  # noqa: E402
import make_dataset  # noqa: E402


class ScriptedServerManager:
    """verl's AsyncLLMServerManager.generate contract: (request_id, *, prompt_ids, sampling_params) -> TokenOutput.
    Replies are scripted texts, encoded as the model would sample them, ended by <|im_end|>."""

    def __init__(self, tokenizer, replies):
        self.tokenizer, self.replies, self.calls = tokenizer, list(replies), []
        self.end = tokenizer.convert_tokens_to_ids("<|im_end|>")

    async def generate(self, request_id, *, prompt_ids, sampling_params, image_data=None, video_data=None):
        self.calls.append({"request_id": request_id, "prompt_ids": list(prompt_ids), "sampling_params": dict(sampling_params)})
        sampling_params.pop("max_tokens")  # as verl's vLLM server does
        ids = self.tokenizer.encode(self.replies.pop(0), add_special_tokens=False) + [self.end]
        logprobs = [-0.01 * (len(self.calls) * 100 + i) for i in range(len(ids))]
        return TokenOutput(token_ids=ids, log_probs=logprobs, stop_reason="completed", num_preempted=0)


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)


def post(url, route, body):
    req = urllib.request.Request(f"{url}/{route}", json.dumps(body).encode(), {"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read().decode())


def replay(url, data_idx, actions):
    """The env's own replies to the same actions on a fresh instance: [reset, step, step, ...]."""
    env_id = post(url, "create", {})["id"]
    replies = [post(url, "reset", {"id": env_id, "data_idx": data_idx})]
    for action in actions:
        replies.append(post(url, "step", {"id": env_id, "action": action}))
    post(url, "close", {"id": env_id})
    return replies


def make_loop(tokenizer, manager, url, max_turns):
    config = {"actor_rollout_ref": {"rollout": {"response_length": 2048, "multi_turn": {"max_assistant_turns": None}}}}
    return actorgym_agent_loop.ActorgymAgentLoop(
        trainer_config=DictConfigWrap(config), server_manager=manager, tokenizer=tokenizer, processor=None,
        dataset_cls=None, dataset_config=DictConfigWrap({}), name="actorgym_agent",
        env_urls={"babyai": url}, max_turns=max_turns,
    )


def check_tokens(tokenizer, manager, loop_out, convo_messages):
    """response_mask marks exactly the sampled ids; ids equal the re-tokenized conversation."""
    out = loop_out
    sampled = [tok for call in manager.sampled for tok in call]
    check([t for t, m in zip(out.response_ids, out.response_mask) if m == 1] == sampled, "mask-1 ids are exactly the sampled ids, in order")
    check(len(out.response_logprobs) == len(out.response_ids), "one log-prob per response id")
    check([lp for lp, m in zip(out.response_logprobs, out.response_mask) if m == 1] == manager.sampled_logprobs, "sampled log-probs kept")
    check(all(lp == 0.0 for lp, m in zip(out.response_logprobs, out.response_mask) if m == 0), "env log-probs are 0")
    check(out.response_mask[0] == 1 and out.response_mask[-1] == 1, "response starts and ends on model tokens")
    full = tokenizer.encode(tokenizer.apply_chat_template(convo_messages, tokenize=False), add_special_tokens=False)
    ids = out.prompt_ids + out.response_ids
    check(full[: len(ids)] == ids, "prompt+response ids equal the re-tokenized conversation")
    check(tokenizer.decode(full[len(ids):]).strip() == "", "only the template's trailing whitespace is left over")
    for i, call in enumerate(manager.calls):
        check(ids[: len(call["prompt_ids"])] == call["prompt_ids"], f"turn {i}'s prompt is a prefix of the episode")
        check(call["request_id"] == manager.calls[0]["request_id"], "one request id per episode")
        check(call["sampling_params"]["max_tokens"] == 2048 - (len(call["prompt_ids"]) - len(out.prompt_ids)), "max_tokens is the budget left")


def recorded(manager):
    """Keeps what each scripted generate returned, by wrapping it."""
    manager.sampled, manager.sampled_logprobs = [], []
    inner = manager.generate

    async def generate(request_id, **kw):
        out = await inner(request_id, **kw)
        manager.sampled.append(out.token_ids)
        manager.sampled_logprobs.extend(out.log_probs)
        return out

    manager.generate = generate
    return manager


async def main(url, tokenizer_dir):
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    check(_agent_loop_registry.get("actorgym_agent") == {"_target_": "actorgym_agent_loop.ActorgymAgentLoop"}, "registered as actorgym_agent")
    raw_prompt = [{"role": "system", "content": "You play BabyAI. End each reply with `Action: <action>`."}]
    replies = ["I will look around first.", "Thought: closer first.\nAction: move forward", "Thought: the ball.\nAction: go to red ball 1"]
    manager = recorded(ScriptedServerManager(tokenizer, replies))
    loop = make_loop(tokenizer, manager, url, max_turns=8)
    out = await loop.run({"temperature": 1.0, "top_p": 1.0, "logprobs": True}, raw_prompt=raw_prompt,
                         extra_info={"env": "babyai", "data_idx": 2}, agent_name="actorgym_agent")
    check(isinstance(out, AgentLoopOutput), "returns AgentLoopOutput")
    env = replay(url, 2, ["move forward", "go to red ball 1"])
    env_final = env[-1]
    check(env_final["done"] and out.reward_score == env_final["score"] and out.reward_score > 0, f"reward from the env: {out.reward_score} vs {env_final}")
    check(out.extra_fields["turn_scores"] == [0.0, 0.0, env_final["reward"]] and out.extra_fields["outcome"] == "success", "per-turn rewards and outcome")
    check(out.num_turns == 1 + 3 + 2, f"num_turns counts opening + 3 replies + 2 observations: {out.num_turns}")
    # The conversation written out independently: the env's own observations, the scripted replies.
    messages = [raw_prompt[0], {"role": "user", "content": env[0]["observation"]},
                {"role": "assistant", "content": replies[0]}, {"role": "user", "content": actorgym_agent_loop.FORMAT_NOTE},
                {"role": "assistant", "content": replies[1]}, {"role": "user", "content": env[1]["observation"]},
                {"role": "assistant", "content": replies[2]}]
    check_tokens(tokenizer, manager, out, messages)

    # An episode cut by max_turns: no reward, and the response ends on the last reply, not on env tokens.
    manager2 = recorded(ScriptedServerManager(tokenizer, ["Action: turn left", "Action: turn right"]))
    out2 = await make_loop(tokenizer, manager2, url, max_turns=2).run(
        {"temperature": 1.0}, raw_prompt=raw_prompt, extra_info={"item_id": "babyai_2"})
    check(out2.reward_score == 0.0 and out2.extra_fields["outcome"] == "truncated", "truncated episode scores 0")
    check(out2.num_turns == 1 + 2 + 1 and out2.response_mask[-1] == 1, "truncated: turns and last token")
    # A dataset row as make_dataset writes it drives the loop the same way.
    row = make_dataset.rows("babyai", make_dataset.parse_indices("2:3"), raw_prompt[0]["content"])[0]
    manager3 = recorded(ScriptedServerManager(tokenizer, replies[1:]))
    out3 = await make_loop(tokenizer, manager3, url, max_turns=8).run(
        {"temperature": 1.0}, raw_prompt=row["prompt"], extra_info=row["extra_info"], agent_name=row["agent_name"])
    check(out3.reward_score == out.reward_score and out3.num_turns == 4, "a make_dataset row plays the same task")
    print(json.dumps({"turns": out.num_turns, "reward": out.reward_score, "prompt_ids": len(out.prompt_ids),
                      "response_ids": len(out.response_ids), "model_tokens": sum(out.response_mask),
                      "truncated_turns": out2.num_turns}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
