#!/usr/bin/env python3
"""The reference transformer training step of bench/transformer-step.ts, in PyTorch.

Same architecture and work: decoder-only, vocab 512, d 128, 2 layers, 4 heads, ReLU MLP 512,
learned positions, pre-norm, untied head plus a value head; batch 32 x seq 128 (4,096 tokens);
loss = -mean log p(next) - 0.01 mean entropy + 0.5 mean value^2 over all positions; Adam.
Prints trained tokens/s (median of several steps) at 1 thread (like tfjs-wasm, which is
single-threaded under Node) and at all cores.

  /usr/bin/python3 bench/torch_reference.py [--steps 10] [--json]

Debian's python3-torch is built for /usr/bin/python3 and uses the system BLAS: install
libopenblas0-pthread with it, or the baseline is crippled (about 15x slower).
The children also run with glibc's malloc keeping freed memory (GLIBC_TUNABLES below): by
default glibc maps every block over 128 KiB fresh from the kernel and unmaps it when freed, so
each activation tensor of a step page-faults again. That made the step about 4x slower here
(663 against 172 ms); PyTorch's CPU tuning guides fix the same with jemalloc or tcmalloc.
Exits 0 with a message when torch is missing.
"""
import argparse
import json
import math
import os
import subprocess
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("torch_reference: PyTorch is not installed for this python3 "
          "(apt-get install -y python3-torch libopenblas0-pthread); skipping.")
    sys.exit(0)

V, D, L, H, FF, T, B = 512, 128, 2, 4, 512, 128, 32

# Never mmap a block, never give memory back: freed activations are reused, not page-faulted anew.
MALLOC_KEEPS_MEMORY = "glibc.malloc.mmap_threshold=4294967295:glibc.malloc.trim_threshold=4294967295"



class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.out = nn.Linear(D, 3 * D), nn.Linear(D, D)
        self.fc, self.proj = nn.Linear(D, FF), nn.Linear(FF, D)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        heads = lambda z: z.view(b, t, H, D // H).transpose(1, 2)
        q, k, v = heads(q), heads(k), heads(v)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(D // H) + mask
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, D)
        x = x + self.out(y)
        return x + self.proj(F.relu(self.fc(self.ln2(x))))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok, self.pos = nn.Embedding(V, D), nn.Parameter(torch.zeros(T, D).normal_(0, 0.02))
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.ln_f, self.head, self.value = nn.LayerNorm(D), nn.Linear(D, V), nn.Linear(D, 1)
        self.register_buffer("mask", torch.full((T, T), -1e9).triu(1))

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos[: tokens.shape[1]]
        for blk in self.blocks:
            x = blk(x, self.mask)
        x = self.ln_f(x)
        return self.head(x), self.value(x).squeeze(-1)


def loss_fn(model, tokens):
    logits, values = model(tokens)
    logp = logits[:, :-1].log_softmax(-1)
    picked = logp.gather(-1, tokens[:, 1:, None]).squeeze(-1)
    entropy = -(logp.exp() * logp).sum(-1)
    return -picked.mean() - 0.01 * entropy.mean() + 0.5 * (values ** 2).mean()


def tokens_per_sec(threads, steps):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, V, (B, T))
    times = []
    for i in range(steps + 1):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss_fn(model, tokens).backward()
        opt.step()
        if i > 0:
            times.append(time.perf_counter() - t0)
    return B * T / statistics.median(times), statistics.median(times)


def measure_in_child(threads, steps):
    """One thread count per process: OpenBLAS and glibc's allocator read their settings from the
    environment at start, and torch.set_num_threads alone would still let sgemm use every core."""
    # OpenBLAS single-threaded: with torch's own threads on top, two cores were oversubscribed
    # and 2 threads ran at 0.6x of 1 (14,406 against 23,599 tok/s); this way 24,792.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS=str(threads),
               GLIBC_TUNABLES=MALLOC_KEEPS_MEMORY)
    out = subprocess.run([sys.executable, __file__, "--one", str(threads), "--steps", str(steps)],
                         env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--json", action="store_true", help="print one JSON line {threads: tokens/s}")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        tps, sec = tokens_per_sec(args.one, args.steps)
        print(json.dumps([tps, sec]))
        return
    results = {t: measure_in_child(t, args.steps) for t in sorted({1, os.cpu_count() or 1})}
    if args.json:
        print(json.dumps({"torch": torch.__version__, "tokensPerSec": {str(t): r[0] for t, r in results.items()}}))
        return
    print(f"PyTorch {torch.__version__}, reference step (vocab {V}, d {D}, {L} layers, {H} heads, ff {FF}, "
          f"seq {T} x batch {B} = {B * T} tokens), medians of {args.steps} steps")
    for threads, (tps, sec) in results.items():
        print(f"  {threads} thread{'s' if threads > 1 else ' '}  {tps:>10,.0f} tok/s  {sec * 1000:7.0f} ms/step")


if __name__ == "__main__":
    main()
