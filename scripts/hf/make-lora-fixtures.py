#!/usr/bin/env python3
"""PEFT LoRA adapters on the tiny fixture models and the logits peft computes with them, for
tests/policy/hf/lora-*.test.ts (issue 36).

Writes under tests/fixtures/hf/lora/ (committed, so `npm test` needs no Python):
  qwen2-tiny-r4/       on qwen2-tiny: r 4, alpha 8, all seven projections (q/k/v/o, gate/up/down)
  qwen3-tiny-qv-rslora/ on qwen3-tiny: r 2, alpha 4, q_proj and v_proj only, use_rslora (scale
                       alpha/sqrt(r))
Each folder is what `PeftModel.save_pretrained` writes (adapter_config.json,
adapter_model.safetensors) plus reference.json + logits.bin: the base model's fixed input
sequences (its reference.json) and peft's logits at every position (float32 little-endian,
sequence after sequence, [length, vocab] each). lora_A keeps peft's own initialisation and lora_B,
which peft initialises to zeros, is set from a seeded normal so the adapter changes the logits.

Run from the repository root after scripts/hf/make-tiny-models.py (wheels on disk, no internet):
  python3 -m venv /tmp/hfvenv
  /tmp/hfvenv/bin/pip install --index-url file:///opt/pypi/simple \
      --extra-index-url file:///opt/pypi-more/simple torch transformers safetensors peft
  /tmp/hfvenv/bin/python scripts/hf/make-lora-fixtures.py
Deterministic: seeded, float32, eager attention, one thread (a rerun writes the same
adapter_model.safetensors and logits.bin bit for bit; only the order of target_modules in
adapter_config.json, a Python set, may change, and readers do not depend on it).
"""
import argparse
import json
import os
import shutil

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

ADAPTERS = {
    "qwen2-tiny-r4": dict(
        base="qwen2-tiny",
        lora=dict(r=4, lora_alpha=8, target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]),
    ),
    "qwen3-tiny-qv-rslora": dict(
        base="qwen3-tiny",
        lora=dict(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"], use_rslora=True),
    ),
}

B_STD = 0.2


@torch.no_grad()
def make_adapter(name, spec, fixtures):
    base_dir = os.path.join(fixtures, spec["base"])
    torch.manual_seed(4321)
    base = AutoModelForCausalLM.from_pretrained(base_dir, dtype=torch.float32, attn_implementation="eager").eval()
    config = LoraConfig(task_type="CAUSAL_LM", lora_dropout=0.0, bias="none", **spec["lora"])
    model = get_peft_model(base, config).eval()
    gen = torch.Generator().manual_seed(777)
    for module_name, param in model.named_parameters():
        if "lora_B" in module_name:
            param.copy_(torch.randn(param.shape, generator=gen) * B_STD)

    folder = os.path.join(fixtures, "lora", name)
    shutil.rmtree(folder, ignore_errors=True)
    model.save_pretrained(folder)
    for extra in ("README.md",):
        path = os.path.join(folder, extra)
        if os.path.exists(path):
            os.remove(path)

    with open(os.path.join(base_dir, "reference.json")) as f:
        inputs = json.load(f)["logits"]["inputs"]
    blob = bytearray()
    largest_change = 0.0
    for ids in inputs:
        x = torch.tensor([ids])
        logits = model(x).logits[0].to(torch.float32).contiguous()
        with model.disable_adapter():
            plain = model(x).logits[0]
        largest_change = max(largest_change, (logits - plain).abs().max().item())
        blob += logits.numpy().astype("<f4").tobytes()
    with open(os.path.join(folder, "logits.bin"), "wb") as f:
        f.write(bytes(blob))
    reference = dict(adapter=name, base=spec["base"], vocabSize=base.config.vocab_size, logits=dict(file="logits.bin", inputs=inputs), largestChangeFromBase=largest_change)
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    print(f"{name}: adapter on {spec['base']} changes logits by up to {largest_change:.3f} -> {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fixtures", default="tests/fixtures/hf")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    for name, spec in ADAPTERS.items():
        make_adapter(name, spec, args.fixtures)


if __name__ == "__main__":
    main()
