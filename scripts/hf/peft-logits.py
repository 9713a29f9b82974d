#!/usr/bin/env python3
"""Logits of a base model with a peft LoRA adapter, as peft computes them: the reverse parity
check of tests/policy/hf/lora-peft-live.test.ts (issue 36), which exports an adapter from TF.js
and asks peft what it computes with it.

  python scripts/hf/peft-logits.py --base DIR --adapter DIR --inputs '[[1,2,3],[4,5]]' --out FILE

Writes the logits of every input sequence, alone, at every position (float32 little-endian,
sequence after sequence, [length, vocab] each). Needs torch, transformers, safetensors and peft
(see scripts/hf/make-lora-fixtures.py for installing them from the wheels on disk).
"""
import argparse
import json

import torch
from peft import PeftModel
from transformers import AutoModelForCausalLM


@torch.no_grad()
def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", required=True)
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--inputs", required=True, help="JSON list of token-id lists")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.set_num_threads(1)
    base = AutoModelForCausalLM.from_pretrained(args.base, dtype=torch.float32, attn_implementation="eager").eval()
    model = PeftModel.from_pretrained(base, args.adapter).eval()
    blob = bytearray()
    for ids in json.loads(args.inputs):
        blob += model(torch.tensor([ids])).logits[0].to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
    with open(args.out, "wb") as f:
        f.write(bytes(blob))


if __name__ == "__main__":
    main()
