"""Sampling through TRL's colocated vLLM engine (`GRPOConfig(use_vllm=True, vllm_mode="colocate")`), for the
in-process policy server: one GPU, one process, vLLM's speed, no NCCL between processes.

TRL pushes the trainer's weights into its colocated engine before every `rollout_func` call
(`GRPOTrainer._generate` → `vllm_generation.sync_weights()`), so the engine samples from the model being
trained; TRL builds it with `logprobs_mode="processed_logprobs"`, so the log-probs are the
temperature-scaled ones, as TRL scores them. Replies go through one at a time (the server's lock; vLLM's
`LLM` is not thread-safe). Written against TRL 1.13's VLLMGeneration and vLLM's `LLM.generate`;
NOT tested here (no GPU, no vLLM on these machines).
"""
from __future__ import annotations

from .sampler import Sampled


class VllmColocateSampler:
    """A `sample(...)` with the signature of sampler.sample minus the model, backed by trainer.vllm_generation.llm."""

    def __init__(self, trainer) -> None:
        generation = trainer.vllm_generation
        if getattr(generation, "enable_sleep_mode", False):
            raise ValueError("vllm_enable_sleep_mode: must be False with the bridge (TRL wakes only the weights before "
                             "a rollout_func call, and episodes need the KV cache)")
        self.llm = generation.llm

    def __call__(self, prompt_ids: list[int], *, max_tokens: int, temperature: float, top_p: float,
                 stop_ids: set[int], seed: int | None) -> Sampled:
        from vllm import SamplingParams  # only where vLLM is installed

        params = SamplingParams(n=1, temperature=temperature, top_p=top_p, max_tokens=max_tokens, logprobs=0,
                                stop_token_ids=sorted(stop_ids), seed=seed)
        output = self.llm.generate([{"prompt_token_ids": prompt_ids}], sampling_params=params, use_tqdm=False)[0].outputs[0]
        ids = list(output.token_ids)
        logprobs = [float(step[token].logprob) for step, token in zip(output.logprobs, ids)]
        return Sampled(ids, logprobs, "stop" if ids and ids[-1] in stop_ids else "length")
