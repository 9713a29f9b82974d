#!/usr/bin/env python3
"""PyTorch side of bench/hf-forward.ts: forward and KV-cache decode tokens/s of a model folder.

Same work as the TF.js side: float32, eager attention, forward of batch x length tokens (logits at
every position), and greedy decoding with transformers' generate (prefill of the prompt, then
NEW tokens per sequence with its KV cache); decode time = generate(NEW + 1) - generate(1) with the
same prompts, so the prefill is not counted. Prints one JSON object on stdout.

  /tmp/hfvenv/bin/python scripts/hf/torch-bench.py --model DIR --threads 1 --batches 1,16,64
(set up the venv as scripts/hf/make-tiny-models.py says)
"""
import argparse
import json
import statistics
import time

import torch
from transformers import AutoModelForCausalLM


def median_seconds(fn, repeats):
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@torch.no_grad()
def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batches", default="1,16,64")
    p.add_argument("--length", type=int, default=128)
    p.add_argument("--prompt", type=int, default=16)
    p.add_argument("--new", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    model = AutoModelForCausalLM.from_pretrained(args.model, dtype=torch.float32, attn_implementation="eager").eval()
    vocab = model.config.vocab_size
    gen = torch.Generator().manual_seed(0)
    rows = []
    for batch in [int(b) for b in args.batches.split(",")]:
        ids = torch.randint(3, vocab, (batch, args.length), generator=gen)
        forward = median_seconds(lambda: model(ids), args.repeats)
        prompt = torch.randint(3, vocab, (batch, args.prompt), generator=gen)
        mask = torch.ones_like(prompt)

        def run(n):
            return lambda: model.generate(prompt, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=0, eos_token_id=None)

        first = median_seconds(run(1), args.repeats)
        full = median_seconds(run(args.new + 1), args.repeats)
        rows.append(dict(batch=batch, forwardTokensPerSecond=batch * args.length / forward, decodeTokensPerSecond=batch * args.new / max(full - first, 1e-9)))
    print(json.dumps(dict(torch=torch.__version__, threads=args.threads, rows=rows)))


if __name__ == "__main__":
    main()
