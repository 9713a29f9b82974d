"""Sampling one reply from the trainer's live model, token by token, with the log-probs TRL recomputes.

The log-prob of each sampled id is taken from the same temperature-scaled distribution it was drawn
from, which is what GRPOTrainer computes (logits / temperature) when it scores the completion, so
the two agree up to float noise. No weights are copied: the module passed in is the one the
optimizer updates. The caller holds the weights lock (weights_lock.py) around `sample`.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Sampled:
    ids: list[int]
    logprobs: list[float]
    finish: str  # "stop" (ended on a stop id, which is included) or "length"


def _filter_top_p(logits: torch.Tensor, top_p: float) -> torch.Tensor:
    """Logits outside the smallest set whose probability reaches top_p set to -inf (nucleus sampling)."""
    if top_p >= 1.0:
        return logits
    sorted_logits, order = torch.sort(logits, descending=True)
    cumulative = torch.softmax(sorted_logits, dim=-1).cumsum(dim=-1)
    drop = cumulative - torch.softmax(sorted_logits, dim=-1) >= top_p  # keep the token that crosses top_p
    sorted_logits[drop] = float("-inf")
    return torch.full_like(logits, float("-inf")).scatter(0, order, sorted_logits)


@torch.no_grad()
def sample(model: torch.nn.Module, prompt_ids: list[int], *, max_tokens: int, temperature: float, top_p: float,
           stop_ids: set[int], seed: int | None) -> Sampled:
    """Sample up to max_tokens ids after prompt_ids, stopping on (and keeping) a stop id."""
    device = next(model.parameters()).device
    generator = torch.Generator(device="cpu")
    if seed is not None:
        # actorgym sends the episode's seed with every turn: mixed with the prompt's length, so each turn
        # draws fresh numbers (a turn's prompt is longer than the last's) and a rerun replays the episode.
        generator.manual_seed((seed * 1_000_003 + len(prompt_ids)) % (1 << 63))
    else:
        generator.seed()
    ids: list[int] = []
    logprobs: list[float] = []
    past = None
    step_input = torch.tensor([prompt_ids], device=device)
    for _ in range(max_tokens):
        out = model(input_ids=step_input, past_key_values=past, use_cache=True)
        past = out.past_key_values
        logits = out.logits[0, -1].float().cpu()
        if temperature <= 0:
            token = int(torch.argmax(logits))
            logprob = float(torch.log_softmax(logits, dim=-1)[token])
        else:
            scaled = logits / temperature
            logp = torch.log_softmax(scaled, dim=-1)
            probs = torch.softmax(_filter_top_p(scaled, top_p), dim=-1)
            token = int(torch.multinomial(probs, 1, generator=generator))
            logprob = float(logp[token])
        ids.append(token)
        logprobs.append(logprob)
        if token in stop_ids:
            return Sampled(ids, logprobs, "stop")
        step_input = torch.tensor([[token]], device=device)
    return Sampled(ids, logprobs, "length")
