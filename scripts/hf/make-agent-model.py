#!/usr/bin/env python3
"""A small random-initialised Qwen2 model folder that can act in actorgym's envs, for the learning
runs of docs/hf-models.md and the end-to-end tests (issue 36): what a user's model folder looks
like (config.json, model.safetensors, tokenizer.json, tokenizer_config.json with a ChatML chat
template, generation_config.json), at a size these 2 cores can train from scratch.

The tokenizer is either tests/fixtures/hf/tokenizer/tiny (a 384-token byte-level BPE trained on
env strings by make-tokenizer-fixtures.py, ChatML special tokens), or, with --corpus and --vocab,
a byte-level BPE of that size trained here on the prompts and replies scripts/hf/agent-corpus.ts
writes (fewer tokens per episode), with the same special tokens and ChatML template. The model's
vocabulary is the tokenizer's rounded up to a multiple of 64, as Qwen's is. Weights: transformers' own initialisation (normal, std
initializer_range), seeded, float32.

Run (no internet needed: the wheels are on disk):
  python3 -m venv /tmp/hfvenv
  /tmp/hfvenv/bin/pip install --index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple torch transformers safetensors
  /tmp/hfvenv/bin/python scripts/hf/make-agent-model.py --out /tmp/qwen2-agent --hidden 128 --layers 4
  npx tsx scripts/hf/agent-corpus.ts --out /tmp/agent-corpus.json
  /tmp/hfvenv/bin/python scripts/hf/make-agent-model.py --out /tmp/qwen2-agent-2k --corpus /tmp/agent-corpus.json --vocab 2048
"""
import argparse
import json
import os
import shutil

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


CHAT_TEMPLATE = ("{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
                 "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")


def train_tokenizer(corpus: str, size: int, out: str) -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=size, special_tokens=['<|endoftext|>', '<|im_start|>', '<|im_end|>'],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(json.load(open(corpus)), trainer)
    os.makedirs(out, exist_ok=True)
    tok.save(os.path.join(out, 'tokenizer.json'))
    config = {'tokenizer_class': 'PreTrainedTokenizerFast', 'eos_token': '<|im_end|>', 'pad_token': '<|endoftext|>', 'chat_template': CHAT_TEMPLATE}
    with open(os.path.join(out, 'tokenizer_config.json'), 'w') as f:
        json.dump(config, f, indent=2)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--out', required=True, help='model folder to write (must not exist)')
    p.add_argument('--tokenizer', default=os.path.join(ROOT, 'tests/fixtures/hf/tokenizer/tiny'))
    p.add_argument('--hidden', type=int, default=128)
    p.add_argument('--layers', type=int, default=4)
    p.add_argument('--heads', type=int, default=4)
    p.add_argument('--kv-heads', type=int, default=2)
    p.add_argument('--intermediate', type=int, default=None, help='MLP width (default 4 x hidden)')
    p.add_argument('--max-position', type=int, default=4096)
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--corpus', help='JSON list of strings to train a tokenizer on (scripts/hf/agent-corpus.ts)')
    p.add_argument('--vocab', type=int, default=2048, help='tokenizer size with --corpus')
    a = p.parse_args()
    if os.path.exists(a.out):
        raise SystemExit(f'{a.out} exists; choose a new folder')
    if a.corpus:
        a.tokenizer = train_tokenizer(a.corpus, a.vocab, a.out + '.tokenizer')
    tok = json.load(open(os.path.join(a.tokenizer, 'tokenizer.json')))
    ids = [v for v in tok['model']['vocab'].values()] + [t['id'] for t in tok.get('added_tokens', [])]
    vocab = (max(ids) + 1 + 63) // 64 * 64
    special = {t['content']: t['id'] for t in tok.get('added_tokens', [])}
    eos = [special['<|im_end|>'], special['<|endoftext|>']]
    torch.manual_seed(a.seed)
    config = Qwen2Config(
        vocab_size=vocab, hidden_size=a.hidden, intermediate_size=a.intermediate or 4 * a.hidden,
        num_hidden_layers=a.layers, num_attention_heads=a.heads, num_key_value_heads=a.kv_heads,
        max_position_embeddings=a.max_position, rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
        use_sliding_window=False, bos_token_id=special['<|endoftext|>'], eos_token_id=eos[0],
    )
    model = Qwen2ForCausalLM(config).eval()
    model.generation_config.eos_token_id = eos
    model.generation_config.pad_token_id = special['<|endoftext|>']
    model.save_pretrained(a.out, safe_serialization=True)
    for name in ('tokenizer.json', 'tokenizer_config.json'):
        shutil.copy(os.path.join(a.tokenizer, name), os.path.join(a.out, name))
    if a.corpus:
        shutil.rmtree(a.tokenizer)
    n = sum(t.numel() for t in model.parameters())
    print(f'wrote {a.out}: Qwen2, {n / 1e6:.2f}M parameters, vocab {vocab}, hidden {a.hidden}, {a.layers} layers, eos {eos}')


if __name__ == '__main__':
    main()
