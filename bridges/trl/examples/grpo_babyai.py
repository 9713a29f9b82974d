#!/usr/bin/env python3
"""GRPO on multi-turn BabyAI with TRL, the episodes run by actorgym's rollout service.

  actorgym rollout-server --port 8300 &
  python bridges/trl/examples/grpo_babyai.py --service http://127.0.0.1:8300 --model DIR --steps 3 --summary out.json

Without --policy-url, the episodes are sampled by the model being trained, through the in-process
`/v1/completions` server (actorgym_trl.PolicyServer); with it (vLLM serving the trained model), that
endpoint samples. --summary writes what tests/bridges/trl-e2e.test.ts checks: TRL's logged metrics per
step, the shapes of every episode the bridge handed TRL, and how far the weights moved.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

import torch  # noqa: E402
from datasets import Dataset  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from actorgym_trl import ActorgymRollouts, env_reward  # noqa: E402


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--service", required=True, help="the rollout service's URL (actorgym rollout-server)")
    p.add_argument("--token", default=os.environ.get("ACTORGYM_TOKEN"), help="its bearer token")
    p.add_argument("--model", required=True, help="Hugging Face model folder (weights, tokenizer, chat template)")
    p.add_argument("--policy-url", default=None, help="an OpenAI endpoint serving the trained model (vLLM); default: in-process")
    p.add_argument("--env", default="babyai")
    p.add_argument("--tasks", default="GoToRedBallGrey/1000,GoToRedBallGrey/1001,GoToRedBallGrey/1002,GoToRedBallGrey/1003")
    p.add_argument("--prompts-per-step", type=int, default=2)
    p.add_argument("--num-generations", type=int, default=4)
    p.add_argument("--horizon", type=int, default=3)
    p.add_argument("--max-tokens", type=int, default=24, help="most tokens per reply")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--output-dir", default="/tmp/actorgym-trl-grpo")
    p.add_argument("--summary", default=None, help="write a JSON summary here")
    p.add_argument("--keep-records", action="store_true", help="put every token record in the summary (tests)")
    return p.parse_args()


def main() -> None:
    args = parse_args()
    torch.manual_seed(0)
    started = time.time()
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32)
    tokenizer = AutoTokenizer.from_pretrained(args.model)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    tasks = args.tasks.split(",")
    config = GRPOConfig(
        output_dir=args.output_dir, max_steps=args.steps, learning_rate=args.lr,
        per_device_train_batch_size=args.prompts_per_step * args.num_generations, num_generations=args.num_generations,
        gradient_accumulation_steps=1, beta=0.0, temperature=1.0, logging_steps=1, report_to="none",
        save_strategy="no", use_cpu=True, seed=0, dataloader_num_workers=0,
    )
    rollouts = ActorgymRollouts(args.service, args.env, tokenizer_dir=os.path.abspath(args.model), policy_url=args.policy_url,
                                token=args.token, horizon=args.horizon, max_tokens=args.max_tokens, concurrency=8,
                                keep_records=args.keep_records)
    trainer = GRPOTrainer(model=model, args=config, reward_funcs=[env_reward], train_dataset=Dataset.from_dict({"prompt": tasks}),
                          processing_class=tokenizer, rollout_func=rollouts)
    try:
        trainer.train()
    finally:
        rollouts.close()
    moved = max((p.detach() - before[name]).abs().max().item() for name, p in model.named_parameters())
    summary = {
        "seconds": round(time.time() - started, 1),
        "logs": [entry for entry in trainer.state.log_history if "loss" in entry],
        "batches": rollouts.batches,
        "numInputTokensSeen": trainer.state.num_input_tokens_seen,
        "maxWeightChange": moved,
        "optimizerSteps": rollouts.lock.optimizer_steps,
        "served": rollouts.served,
    }
    text = json.dumps(summary, indent=1)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
