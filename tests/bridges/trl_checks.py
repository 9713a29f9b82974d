#!/usr/bin/env python3
"""Checks of the TRL bridge's pieces that need Python (run by tests/bridges/trl-bridge.test.ts, which
asserts on the JSON this prints): the in-process policy server on the fixture model, its weights
lock, and the record-to-TRL mapping. Usage: python tests/bridges/trl_checks.py MODEL_DIR"""
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../bridges/trl"))

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402

from actorgym_trl import PolicyServer, WeightsLock, order_by_prompt, split_record  # noqa: E402


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def recomputed_logprobs(model, prompt: list[int], ids: list[int], temperature: float) -> list[float]:
    """What GRPOTrainer computes: log_softmax(logits / T) at each sampled id, one forward over prompt + reply."""
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt + ids])).logits[0, len(prompt) - 1: -1] / temperature
    return torch.log_softmax(logits, dim=-1).gather(1, torch.tensor(ids)[:, None])[:, 0].tolist()


def lock_check(server: PolicyServer, lock: WeightsLock, url: str, body: dict) -> dict:
    """A request made while the optimizer holds the lock waits for on_optimizer_step."""
    lock.on_pre_optimizer_step(None, None, None)
    done: dict = {}
    def request() -> None:
        status = post(url, body)[0]
        done.update(at=time.monotonic(), status=status)

    thread = threading.Thread(target=request)
    thread.start()
    time.sleep(0.5)
    waiting = "at" not in done
    released = time.monotonic()
    lock.on_optimizer_step(None, None, None)
    thread.join(60)
    return {"waitedWhileLocked": waiting, "completedAfterRelease": done.get("at", 0) >= released, "status": done.get("status")}


def records_check() -> dict:
    def record(task, sample, reward):
        return {"taskId": task, "sample": sample, "episodeId": f"{task}-{sample}", "reward": reward, "outcome": "success",
                "tokens": [1, 2, 3, 9, 4, 5, 9], "mask": [0, 0, 0, 1, 0, 0, 1], "logProbs": [0, 0, 0, -0.5, 0, 0, -0.25],
                "turns": [{"promptIds": [1, 2, 3], "responseIds": [9]}, {"promptIds": [4, 5], "responseIds": [9]}]}
    got = order_by_prompt(["a", "a", "b", "b"], [record("b", 1, 0.0), record("a", 1, 1.0), record("b", 0, 0.5), record("a", 0, 0.0)])
    errors = {}
    for name, call in {
        "missing": lambda: order_by_prompt(["a", "a"], [record("a", 0, 0)]),
        "extra": lambda: order_by_prompt(["a"], [record("a", 0, 0), record("a", 1, 0)]),
        "lengths": lambda: split_record({**record("a", 0, 0), "mask": [0]}),
        "prefix": lambda: split_record({**record("a", 0, 0), "turns": [{"promptIds": [7], "responseIds": []}]}),
    }.items():
        try:
            call()
            errors[name] = None
        except ValueError as error:
            errors[name] = str(error)
    return {"order": [(r["taskId"], r["sample"]) for r in got], "split": split_record(got[0]), "errors": errors}


def policy_choice_check() -> dict:
    """Which policy endpoint ActorgymRollouts picks for a trainer with vLLM: a stand-in trainer and a stand-in
    vLLM (the shapes of vLLM's SamplingParams and RequestOutput as TRL 1.13 reads them), no GPU."""
    import types

    from actorgym_trl import ActorgymRollouts

    seen: dict = {}

    class FakeParams:
        def __init__(self, **kwargs):
            seen["params"] = kwargs

    class FakeLlm:
        def generate(self, prompts, sampling_params, use_tqdm):
            seen["prompts"] = prompts
            step = lambda token, lp: {token: types.SimpleNamespace(logprob=lp, rank=1)}  # noqa: E731
            out = types.SimpleNamespace(token_ids=[7, 2], logprobs=[step(7, -0.5), step(2, -0.25)])
            return [types.SimpleNamespace(outputs=[out])]

    sys.modules["vllm"] = types.SimpleNamespace(SamplingParams=FakeParams)
    args = types.SimpleNamespace(vllm_server_base_url=None, vllm_server_host="10.0.0.5", vllm_server_port=8000)
    server_mode = types.SimpleNamespace(use_vllm=True, args=args, vllm_generation=types.SimpleNamespace(mode="server"))
    rollouts = ActorgymRollouts("http://svc", "babyai", tokenizer_dir="/m", policy_model="m")
    rollouts._start_policy(server_mode)
    colocate = types.SimpleNamespace(vllm_generation=types.SimpleNamespace(mode="colocate", enable_sleep_mode=False, llm=FakeLlm()))
    from actorgym_trl import VllmColocateSampler

    got = VllmColocateSampler(colocate)([1, 2, 3], max_tokens=8, temperature=0.9, top_p=1.0, stop_ids={2}, seed=4)
    try:
        VllmColocateSampler(types.SimpleNamespace(vllm_generation=types.SimpleNamespace(enable_sleep_mode=True, llm=None)))
        sleep_error = None
    except ValueError as error:
        sleep_error = str(error)
    del sys.modules["vllm"]
    return {"serverModeUrl": rollouts.policy_url, "serverModeStartedServer": rollouts.server is not None,
            "colocate": {"ids": got.ids, "logprobs": got.logprobs, "finish": got.finish, "params": seen["params"],
                         "prompts": seen["prompts"]}, "sleepError": sleep_error}


def main() -> None:
    model_dir = sys.argv[1]
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    lock = WeightsLock()
    server = PolicyServer(lambda: model, tokenizer, lock.sampling(), model_name="trained").start()
    url = server.base_url + "/completions"
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "Your goal: go to the red ball"}], add_generation_prompt=True)
    prompt = list(prompt["input_ids"] if isinstance(prompt, dict) or hasattr(prompt, "keys") else prompt)
    body = {"model": "trained", "prompt": prompt, "max_tokens": 16, "temperature": 0.7, "seed": 5, "logprobs": 1,
            "return_token_ids": True, "return_tokens_as_token_ids": True}
    status, reply = post(url, body)
    ids = reply["choices"][0]["token_ids"]
    recomputed = recomputed_logprobs(model, prompt, ids, 0.7)
    again = post(url, body)[1]["choices"][0]["token_ids"]
    other = post(url, {**body, "seed": 6})[1]["choices"][0]["token_ids"]
    greedy = {**body, "temperature": 0}
    before = post(url, greedy)[1]["choices"][0]["token_ids"]
    with torch.no_grad():  # an in-place change, as an optimizer step makes: the server must see it
        model.get_output_embeddings().weight.mul_(-1.0)
    after = post(url, greedy)[1]["choices"][0]["token_ids"]
    with torch.no_grad():
        model.get_output_embeddings().weight.mul_(-1.0)
    bad_prompt = post(url, {**body, "prompt": "text"})
    bad_id = post(url, {**body, "prompt": [10**6]})
    bad_temperature = post(url, {**body, "temperature": -1})
    locked = lock_check(server, lock, url, body)
    server.close()
    print(json.dumps({
        "status": status, "reply": reply,
        "maxLogprobDiff": max(abs(a - b) for a, b in zip(reply["choices"][0]["logprobs"]["token_logprobs"], recomputed)),
        "sameSeedSame": again == ids, "otherSeedDiffers": other != ids, "liveWeights": before != after,
        "badPrompt": bad_prompt, "badId": bad_id, "badTemperature": bad_temperature, "lock": locked,
        "records": records_check(), "policyChoice": policy_choice_check(),
    }))


if __name__ == "__main__":
    main()
