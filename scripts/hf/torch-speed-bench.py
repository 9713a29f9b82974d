#!/usr/bin/env python3
"""PyTorch side of bench/hf-speed.ts (issue 36, "Measure"): the same work as the TF.js side on the
same model folder, printed as one JSON object on stdout.

- train: tokens/s of one training step (forward, backward, Adam lr 1e-4) on a fixed batch of
  random ids, loss = mean next-token NLL (labels = ids), float32, eager attention; "lora" is peft
  rank 8 / alpha 16 / dropout 0 on q,k,v,o,gate,up,down (only the adapters train), "full" trains
  every weight. Median of --repeats steps after one warm-up.
- decode: greedy transformers generate() at each batch size, --prompt-token prompts; decode time
  = generate(new + 1) - generate(1) on the same prompts, so the prefill is not counted.
- --load DTYPE: only from_pretrained in this fresh process, its seconds and how much the
  process's peak RSS grew (measured after torch and transformers are imported).

  /tmp/hfvenv/bin/python scripts/hf/torch-speed-bench.py --model DIR --threads 1 --train-batch 4 --length 256 \
      --modes lora,full --batches 1,16,64 --prompt 16 --new 32 --repeats 3
  /tmp/hfvenv/bin/python scripts/hf/torch-speed-bench.py --model DIR --load float32
(set up the venv as scripts/hf/make-tiny-models.py says)
"""
import argparse
import json
import resource
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


def load(path, dtype):
    return AutoModelForCausalLM.from_pretrained(path, dtype=dtype, attn_implementation="eager")


def train_tokens_per_second(path, mode, batch, length, repeats):
    model = load(path, torch.float32).train()
    if mode == "lora":
        from peft import LoraConfig, get_peft_model

        targets = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
        model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=targets))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(params, lr=1e-4)
    ids = torch.randint(3, model.config.vocab_size, (batch, length), generator=torch.Generator().manual_seed(4242))

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        return loss.item()

    seconds = median_seconds(step, repeats)
    del model, optimizer
    return batch * length / seconds


@torch.no_grad()
def decode_rows(path, batches, prompt_length, new, repeats):
    model = load(path, torch.float32).eval()
    gen = torch.Generator().manual_seed(0)
    rows = []
    for batch in batches:
        prompt = torch.randint(3, model.config.vocab_size, (batch, prompt_length), generator=gen)
        mask = torch.ones_like(prompt)

        def run(n):
            return lambda: model.generate(prompt, attention_mask=mask, max_new_tokens=n, min_new_tokens=n, do_sample=False, pad_token_id=0, eos_token_id=None)

        first = median_seconds(run(1), repeats)
        full = median_seconds(run(new + 1), repeats)
        rows.append(dict(batch=batch, decodeTokensPerSecond=batch * new / max(full - first, 1e-9)))
    return rows


def load_only(path, dtype_name):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    start = time.perf_counter()
    model = load(path, getattr(torch, dtype_name))
    seconds = time.perf_counter() - start
    growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before
    del model
    return dict(seconds=seconds, peakRssGrowthMiB=growth)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--load", help="only time from_pretrained with this torch dtype (float32, bfloat16)")
    p.add_argument("--train-batch", type=int, default=4)
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--modes", default="lora,full")
    p.add_argument("--batches", default="1,16,64")
    p.add_argument("--prompt", type=int, default=16)
    p.add_argument("--new", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    if args.load:
        print(json.dumps(dict(torch=torch.__version__, **load_only(args.model, args.load))))
        return
    train = {m: train_tokens_per_second(args.model, m, args.train_batch, args.length, args.repeats) for m in args.modes.split(",") if m}
    batches = [int(b) for b in args.batches.split(",") if b]
    decode = decode_rows(args.model, batches, args.prompt, args.new, args.repeats) if batches else []
    print(json.dumps(dict(torch=torch.__version__, threads=args.threads, train=train, decode=decode)))


if __name__ == "__main__":
    main()
