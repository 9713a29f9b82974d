"""Writes a verl RL dataset (parquet) whose rows the actorgym agent loop plays: one row per task index.

    python make_dataset.py --env babyai --indices 0:400 --system-file babyai-system.txt --out babyai_train.parquet

A row is what verl's RLHFDataset reads: `prompt` (the chat messages before the env's first
observation; the loop appends that observation as the user turn), `agent_name`, `data_source`, and
`extra_info` {env, data_idx, index}. Task indices are the AgentGym HTTP server's `data_idx`: for
BabyAI and TextCraft AgentGym's own numbering, for the other envs actorgym's (test tasks first, then
train; docs/agentgym-http.md, "data_idx -> task"). Needs pandas and pyarrow (verl has both).
"""

import argparse

DEFAULT_SYSTEM = (
    "You are an agent in a text environment. Each user turn is what you observe. "
    "Think briefly, then end your reply with exactly one line `Action: <action>`."
)


def parse_indices(spec: str) -> list[int]:
    """`0:400` (stop excluded), `3,7,9`, or a mix: `0:10,50`."""
    out: list[int] = []
    for part in spec.split(","):
        if ":" in part:
            start, stop = part.split(":", 1)
            out.extend(range(int(start), int(stop)))
        elif part.strip():
            out.append(int(part))
    if not out:
        raise ValueError(f"--indices: {spec!r} names no task index")
    return out


def rows(env: str, indices: list[int], system: str, agent_name: str = "actorgym_agent") -> list[dict]:
    return [
        {
            "data_source": f"actorgym/{env}",
            "agent_name": agent_name,
            "prompt": [{"role": "system", "content": system}],
            # verl's RLHFDataset reads extra_info.index; the loop reads env and data_idx.
            "extra_info": {"env": env, "data_idx": i, "index": n},
        }
        for n, i in enumerate(indices)
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--env", required=True, help="babyai, textcraft, sciworld, search or web")
    ap.add_argument("--indices", required=True, help="task indices, e.g. 0:400 or 3,7,9")
    ap.add_argument("--system-file", help="the system prompt (default: a generic `Action:` instruction)")
    ap.add_argument("--agent-name", default="actorgym_agent")
    ap.add_argument("--out", required=True, help="the parquet file to write")
    args = ap.parse_args()
    system = open(args.system_file, encoding="utf8").read().strip() if args.system_file else DEFAULT_SYSTEM
    import pandas as pd  # only here, so rows() is importable without pandas

    pd.DataFrame(rows(args.env, parse_indices(args.indices), system, args.agent_name)).to_parquet(args.out)
    print(f"{args.out}: {len(parse_indices(args.indices))} rows for {args.env}")


if __name__ == "__main__":
    main()
