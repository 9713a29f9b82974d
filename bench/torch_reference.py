#!/usr/bin/env python3
"""The learner's update on the reference step of bench/transformer-step.ts, in PyTorch.

What both sides compute, per timed step (bench/learner-objective-step.ts on the tfjs side,
`update_step` here):

  model   decoder-only transformer, vocab 512, d 128, 2 layers, 4 heads, ReLU MLP 512, learned
          positions, pre-norm (layer-norm eps 1e-5), untied output head with bias. No value head
          is trained: the learner runs GRPO without a critic, so its optimizer holds every
          parameter but `value.*` (learner/run-models.ts). (The tfjs forward still computes
          the value head's [4096, 128] x [128, 1] product and drops it; that is all it costs.)
  batch   32 rows x 128 tokens (4,096), token[r, t] = 6 + (131 r + 17 t) mod 506; mask 1 on every
          token but the first (127 trained decisions a row); logp[b, t] = log p(token t | < t),
          index 0 holding 0 (policy/transformer/log-probs.ts' alignment).
  inputs  old log-probs and the reference policy's log-probs = -log 512 at every token;
          advantages +1 on even rows, -1 on odd ones. Both sets of log-probs are inputs: the
          learner scores the sampling and the frozen reference policy once per learner step,
          before any update (actors/learner/score.ts), so neither side times a reference forward.
  loss    token-mean over mask-1 tokens (sum(x m) / max(sum m, 1)) of
            policy   max(-A r, -A clip(r, 0.8, 1.2)), r = exp(clamp(logp - old, +-20))
            + 1e-3 * k3 KL: exp(x) - x - 1 clamped to +-10, x = clamp(ref - logp, +-20)
            - 1e-3 * entropy of the full next-token distribution
          and the logging scalars the learner reads every step (clip fraction, k1 to the old
          policy, k1 to the reference); algorithms/objective.ts, actors/learner/update.ts,
          learnerDefaults with algo 'grpo'.
  update  backward; global-norm clipping to 1.0 (scale min(1, 1 / (norm + 1e-6))), the step
          skipped on a non-finite norm; Adam lr 1e-4, betas 0.9 / 0.999, eps 1e-8.

The tfjs side runs that on one thread, and with a worker thread computing half of every
minibatch's gradients (actors/learner/data-parallel.ts); this script runs it at 1 thread and at
all cores (torch's intra-op threads). It prints trained tokens/s (median of several steps).

  /usr/bin/python3 bench/torch_reference.py [--steps 10] [--json]

Until 2026-12-04 this script timed a different objective (next-token cross-entropy, entropy and
a trained value head, no clipping); the learner's ratios before that date compare unlike steps.

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
        self.ln_f, self.head = nn.LayerNorm(D), nn.Linear(D, V)
        self.register_buffer("mask", torch.full((T, T), -1e9).triu(1))
        # The learner's initialisation (policy/transformer/params.ts, GPT-2's), so both sides
        # start from the same near-uniform policy and the first step's loss terms agree.
        for name, p in self.named_parameters():
            if p.dim() == 1:  # biases 0; layer-norm gains stay 1
                if not (isinstance(self.get_submodule(name.rsplit(".", 1)[0]), nn.LayerNorm) and name.endswith("weight")):
                    nn.init.zeros_(p)
            else:  # projections into the residual stream get 0.02/sqrt(2L)
                nn.init.normal_(p, 0, 0.02 / math.sqrt(2 * L) if name.endswith(("out.weight", "proj.weight")) else 0.02)

    def forward(self, tokens):
        x = self.tok(tokens) + self.pos[: tokens.shape[1]]
        for blk in self.blocks:
            x = blk(x, self.mask)
        return self.head(self.ln_f(x))


# The learner's hyperparameters (actors/learner/args.ts learnerDefaults, algo 'grpo').
CLIP_RATIO, KL_COEF, ENTROPY_COEF, MAX_GRAD_NORM, LR = 0.2, 1e-3, 1e-3, 1.0, 1e-4


def masked_mean(x, mask):
    return (x * mask).sum() / mask.sum().clamp(min=1)


def shift_right(x):
    """[B, T-1] scores of tokens 1.. onto index t of the token they choose; index 0 holds 0."""
    return F.pad(x, (1, 0))


def objective(model, tokens, mask, old_logp, advantages, ref_logp):
    """algorithms/objective.ts with the entropy bonus of actors/learner/update.ts."""
    logp_all = model(tokens)[:, :-1].log_softmax(-1)
    logp = shift_right(logp_all.gather(-1, tokens[:, 1:, None]).squeeze(-1))
    entropy = shift_right(-(logp_all.exp() * logp_all).sum(-1))
    # Clipped surrogate (algorithms/policy-loss.ts).
    log_ratio = (logp - old_logp).clamp(-20, 20)
    ratio = log_ratio.exp()
    unclipped = -advantages * ratio
    clipped = -advantages * ratio.clamp(1 - CLIP_RATIO, 1 + CLIP_RATIO)
    loss_policy = masked_mean(torch.maximum(unclipped, clipped), mask)
    # k3 KL to the reference (algorithms/kl.ts).
    x = (ref_logp - logp).clamp(-20, 20)
    kl = masked_mean((x.exp() - x - 1).clamp(-10, 10), mask)
    ent = masked_mean(entropy, mask)
    loss = loss_policy + KL_COEF * kl - ENTROPY_COEF * ent
    with torch.no_grad():  # the logging scalars the learner reads each step
        stats = torch.stack([loss, loss_policy, kl, ent,
                             masked_mean((clipped > unclipped).float(), mask),
                             masked_mean(-log_ratio, mask), masked_mean(logp - ref_logp, mask)])
    return loss, stats


def inputs():
    """The rows and fields of bench/learner-objective-step.ts."""
    r = torch.arange(B)[:, None]
    t = torch.arange(T)[None, :]
    tokens = 6 + (r * 131 + t * 17) % (V - 6)
    mask = (t > 0).float().expand(B, T).contiguous()
    uniform = torch.full((B, T), -math.log(V))
    advantages = torch.where(r % 2 == 0, 1.0, -1.0).expand(B, T).contiguous()
    return tokens, mask, uniform, advantages, uniform


def update_step(model, opt, batch):
    opt.zero_grad(set_to_none=True)
    loss, stats = objective(model, *batch)
    loss.backward()
    norm = float(nn.utils.clip_grad_norm_(model.parameters(), MAX_GRAD_NORM))
    if math.isfinite(norm):  # as the learner: a non-finite gradient skips the step
        opt.step()
    return stats.tolist(), norm


def tokens_per_sec(threads, steps):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-8)
    batch = inputs()
    times = []
    for i in range(steps + 1):
        t0 = time.perf_counter()
        stats, norm = update_step(model, opt, batch)
        if i > 0:
            times.append(time.perf_counter() - t0)
        else:  # first-step loss terms, for checking against the learner's (stderr: not parsed)
            print("first step: loss %.5f policy %.5f kl %.2e entropy %.4f clip %.3f approx_kl %.2e kl_k1 %.2e norm %.4f"
                  % (*stats, norm), file=sys.stderr)
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
    print(f"PyTorch {torch.__version__}, the learner's GRPO update on the reference step (vocab {V}, d {D}, {L} layers, {H} heads, ff {FF}, "
          f"seq {T} x batch {B} = {B * T} tokens), medians of {args.steps} steps")
    for threads, (tps, sec) in results.items():
        print(f"  {threads} thread{'s' if threads > 1 else ' '}  {tps:>10,.0f} tok/s  {sec * 1000:7.0f} ms/step")


if __name__ == "__main__":
    main()
