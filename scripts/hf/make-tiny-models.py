#!/usr/bin/env python3
"""Tiny random Hugging Face causal LMs and their reference outputs, for tests/policy/hf/.

Writes under tests/fixtures/hf/ (committed, so `npm test` needs no Python):
  qwen2-tiny/   Qwen2 (q/k/v bias), tied embeddings, one model.safetensors in F32
  qwen3-tiny/   Qwen3 (q/k RMSNorm, explicit head_dim != hidden/heads), untied, stored in BF16
                (the weights are rounded to bf16 first, so the references are exact for that file)
  llama3-tiny/  Llama 3 with rope_scaling llama3 (one frequency in each band), untied, F32 in
                2 shards with model.safetensors.index.json
  dtypes/values.safetensors  the same values as F32, F16 and BF16 plus torch's own float32 of the
                F16/BF16 tensors, to check the reader's conversions bit for bit
Each model folder also holds reference.json + logits.bin: the fixed input sequences, their
logits at every position (float32 little-endian, sequence after sequence, [length, vocab] each),
per-token log-probs of fixed continuations, and 32-token greedy generations with the log-prob of
each generated token. All models use grouped-query attention (2 kv heads for 4 query heads).

Run (no internet needed: the wheels are on disk):
  python3 -m venv /tmp/hfvenv
  /tmp/hfvenv/bin/pip install torch transformers safetensors
  /tmp/hfvenv/bin/python scripts/hf/make-tiny-models.py            # from the repository root
Deterministic: seeded, float32, eager attention, one thread.
"""
import argparse
import json
import os
import shutil

import torch
from safetensors.torch import save_file
from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM

VOCAB = 256
COMMON = dict(
    vocab_size=VOCAB,
    hidden_size=32,
    intermediate_size=64,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=256,
    rms_norm_eps=1e-6,
    # Larger than the default 0.02 so logits spread and greedy generations do not sit on near-ties.
    initializer_range=0.2,
    bos_token_id=1,
    eos_token_id=2,
    pad_token_id=0,
)

MODELS = {
    "qwen2-tiny": dict(
        cls=(Qwen2Config, Qwen2ForCausalLM),
        config=dict(COMMON, rope_theta=10000.0, tie_word_embeddings=True, use_sliding_window=False),
        dtype=torch.float32,
        shard=None,
    ),
    "qwen3-tiny": dict(
        cls=(Qwen3Config, Qwen3ForCausalLM),
        config=dict(COMMON, head_dim=16, rope_theta=1000000.0, tie_word_embeddings=False, use_sliding_window=False),
        dtype=torch.bfloat16,
        shard=None,
    ),
    # head_dim 8, theta 10000: wavelengths 2π·{1, 10, 100, 1000}; with original context 64 and
    # factors 1/4 the first is high-frequency (kept), the second medium (smoothed), the rest low (÷8).
    "llama3-tiny": dict(
        cls=(LlamaConfig, LlamaForCausalLM),
        config=dict(
            COMMON,
            rope_theta=10000.0,
            rope_scaling=dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=64),
            tie_word_embeddings=False,
        ),
        dtype=torch.float32,
        shard="100KB",
    ),
}

LOGIT_LENGTHS = [4, 7, 11]
PROMPT_LENGTHS = [3, 6, 9]
CONTINUATION_LENGTH = 5
NEW_TOKENS = 32


def random_ids(gen, n):
    # Ids 3.. so none is pad/bos/eos.
    return torch.randint(3, VOCAB, (n,), generator=gen).tolist()


@torch.no_grad()
def make_model(name, spec, out_dir):
    config_cls, model_cls = spec["cls"]
    torch.manual_seed(1234)
    config = config_cls(**spec["config"])
    model = model_cls._from_config(config, attn_implementation="eager").eval().to(torch.float32)
    if spec["dtype"] != torch.float32:
        # Round the weights so the stored file and the float32 reference are the same numbers.
        model = model.to(spec["dtype"]).to(torch.float32)

    folder = os.path.join(out_dir, name)
    shutil.rmtree(folder, ignore_errors=True)
    to_save = model.to(spec["dtype"]) if spec["dtype"] != torch.float32 else model
    kwargs = dict(safe_serialization=True)
    if spec["shard"]:
        kwargs["max_shard_size"] = spec["shard"]
    to_save.save_pretrained(folder, **kwargs)
    # The references are what transformers computes in float32 from the folder as written
    # (model.to(bf16) above also rounded buffers such as RoPE's inv_freq, so reload afresh).
    model = model_cls.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager").eval()
    # Only the weights and config are fixtures; generation_config.json is not read yet.
    for extra in ("generation_config.json",):
        path = os.path.join(folder, extra)
        if os.path.exists(path):
            os.remove(path)

    gen = torch.Generator().manual_seed(99)
    inputs = [random_ids(gen, n) for n in LOGIT_LENGTHS]
    logits_blob = bytearray()
    for ids in inputs:
        logits = model(torch.tensor([ids])).logits[0].to(torch.float32).contiguous()
        logits_blob += logits.numpy().astype("<f4").tobytes()

    continuations = []
    for n in PROMPT_LENGTHS:
        prompt = random_ids(gen, n)
        continuation = random_ids(gen, CONTINUATION_LENGTH)
        full = torch.tensor([prompt + continuation])
        log_probs = torch.log_softmax(model(full).logits[0].to(torch.float32), dim=-1)
        per_token = [log_probs[n - 1 + i, t].item() for i, t in enumerate(continuation)]
        continuations.append(dict(prompt=prompt, continuation=continuation, logProbs=per_token))

    greedy = []
    for n in PROMPT_LENGTHS:
        prompt = random_ids(gen, n)
        out = model.generate(
            torch.tensor([prompt]),
            attention_mask=torch.ones(1, n, dtype=torch.long),
            max_new_tokens=NEW_TOKENS,
            min_new_tokens=NEW_TOKENS,
            do_sample=False,
            output_logits=True,
            return_dict_in_generate=True,
            pad_token_id=0,
            eos_token_id=None,
        )
        tokens = out.sequences[0, n:].tolist()
        # A greedy reference is only portable if no step is a near-tie between the top two.
        gap = min((step[0].topk(2).values[0] - step[0].topk(2).values[1]).item() for step in out.logits)
        if gap < 1e-3:
            raise SystemExit(f"{name}: greedy step with top-2 logit gap {gap:.2e}; change the seed")
        log_probs = [torch.log_softmax(step[0].to(torch.float32), dim=-1)[t].item() for step, t in zip(out.logits, tokens)]
        greedy.append(dict(prompt=prompt, tokens=tokens, logProbs=log_probs))

    with open(os.path.join(folder, "logits.bin"), "wb") as f:
        f.write(bytes(logits_blob))
    reference = dict(
        model=name,
        vocabSize=VOCAB,
        logits=dict(file="logits.bin", inputs=inputs),
        continuations=continuations,
        greedy=greedy,
    )
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    print(f"{name}: {sum(p.numel() for p in model.parameters())} parameters -> {folder}")


def make_dtypes(out_dir):
    folder = os.path.join(out_dir, "dtypes")
    os.makedirs(folder, exist_ok=True)
    values = torch.tensor(
        [0.0, -0.0, 1.0, -2.5, 3.14159265, 1e-3, -7.77e-5, 6e-8, 1e-40, 65504.0, 70000.0, 1e30, float("inf"), float("-inf"), float("nan"), 0.1],
        dtype=torch.float32,
    ).reshape(2, 8)
    f16 = values.to(torch.float16)
    bf16 = values.to(torch.bfloat16)
    save_file(
        {
            "f32": values.contiguous(),
            "f16": f16.contiguous(),
            "bf16": bf16.contiguous(),
            "f16_as_f32": f16.to(torch.float32).contiguous(),
            "bf16_as_f32": bf16.to(torch.float32).contiguous(),
        },
        os.path.join(folder, "values.safetensors"),
    )
    print(f"dtypes -> {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="tests/fixtures/hf")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    os.makedirs(args.out, exist_ok=True)
    for name, spec in MODELS.items():
        make_model(name, spec, args.out)
    make_dtypes(args.out)


if __name__ == "__main__":
    main()
