"""An OpenAI-compatible `/v1/completions` endpoint inside the trainer process, sampling from the live model.

actorgym's token-exact client (policy/llm/token-reply.ts, `readCompletionReply`) sends the prompt as
token ids and reads `choices[0].token_ids` plus `logprobs.tokens` named `token_id:<id>` with
`logprobs.token_logprobs`; this server returns both. Replies are sampled one at a time under the
weights lock (weights_lock.py) on the HTTP server's threads; the trainer's main thread is blocked in
`rollout_func` meanwhile, waiting for the episodes. Routes: POST /v1/completions, GET /v1/models,
GET /health. Only for training on one machine; with vLLM as the policy endpoint, this server is not
started (README.md).
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import torch

from .sampler import sample


class CompletionRequestError(ValueError):
    """A request the server cannot serve; the message names the field."""


def _prompt_ids(body: dict[str, Any], vocab_size: int) -> list[int]:
    prompt = body.get("prompt")
    if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], list):
        prompt = prompt[0]  # a batch of one
    if not isinstance(prompt, list) or not prompt or not all(isinstance(t, int) and 0 <= t < vocab_size for t in prompt):
        raise CompletionRequestError(f"prompt: expected a non-empty list of token ids in [0, {vocab_size}) "
                                     "(this server takes ids only; actorgym sends them with --tokenizer hf:DIR)")
    return prompt


def _number(body: dict[str, Any], field: str, default: float, low: float, high: float) -> float:
    value = body.get(field)
    if value is None:
        return default
    if not isinstance(value, (int, float)) or not low <= value <= high:
        raise CompletionRequestError(f"{field}: expected a number in [{low}, {high}], got {value!r}")
    return float(value)


class PolicyServer:
    """Serves `get_model()` (called per request, so it is always the module being trained) on 127.0.0.1:port."""

    def __init__(self, get_model: Callable[[], torch.nn.Module], tokenizer, lock: threading.Lock, *,
                 model_name: str = "trainer", port: int = 0, host: str = "127.0.0.1",
                 stop_ids: set[int] | None = None, default_max_tokens: int = 64, sampler: Callable | None = None) -> None:
        self.get_model, self.tokenizer, self.lock, self.model_name = get_model, tokenizer, lock, model_name
        # Another engine sampling the same weights (vllm_colocate.py); None = PyTorch on get_model().
        self.sampler = sampler
        self.default_max_tokens = default_max_tokens
        ids = set(stop_ids or ())
        for token in (tokenizer.eos_token_id, tokenizer.pad_token_id):
            if token is not None:
                ids.add(int(token))
        self.stop_ids = ids
        self.replies = 0
        self.sampled_tokens = 0
        self._httpd = ThreadingHTTPServer((host, port), self._handler())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "PolicyServer":
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="actorgym-policy-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """One `/v1/completions` reply for a request body (also callable without HTTP, for tests)."""
        model = self.get_model()
        vocab = int(getattr(model.config, "vocab_size"))
        prompt = _prompt_ids(body, vocab)
        max_tokens = int(_number(body, "max_tokens", self.default_max_tokens, 1, 1 << 20))
        temperature = _number(body, "temperature", 1.0, 0.0, 100.0)
        top_p = _number(body, "top_p", 1.0, 1e-9, 1.0)
        seed = body.get("seed")
        if seed is not None and not isinstance(seed, int):
            raise CompletionRequestError(f"seed: expected an integer, got {seed!r}")
        with self.lock:
            got = self._sample(model, prompt, max_tokens=max_tokens, temperature=temperature, top_p=top_p, seed=seed)
        self.replies += 1
        self.sampled_tokens += len(got.ids)
        return {
            "id": f"cmpl-{self.replies}", "object": "text_completion", "created": int(time.time()), "model": self.model_name,
            "choices": [{
                "index": 0,
                "text": self.tokenizer.decode(got.ids, skip_special_tokens=True),
                "finish_reason": got.finish,
                "token_ids": got.ids,
                "prompt_token_ids": prompt,
                "logprobs": {"tokens": [f"token_id:{t}" for t in got.ids], "token_logprobs": got.logprobs},
            }],
            "usage": {"prompt_tokens": len(prompt), "completion_tokens": len(got.ids),
                      "total_tokens": len(prompt) + len(got.ids)},
        }

    def _sample(self, model: torch.nn.Module, prompt: list[int], **options):
        if self.sampler is not None:
            return self.sampler(prompt, stop_ids=self.stop_ids, **options)
        # Dropout off while sampling (the trainer's main thread waits in rollout_func meanwhile).
        was_training = model.training
        model.eval()
        try:
            return sample(model, prompt, stop_ids=self.stop_ids, **options)
        finally:
            model.train(was_training)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet: the trainer's log is the user's
                pass

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path.rstrip("/") in ("/v1/models", "/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model_name, "object": "model", "owned_by": "trainer"}]})
                elif self.path.rstrip("/") == "/health":
                    self._send(200, {"ok": True, "replies": server.replies})
                else:
                    self._send(404, {"error": {"message": f"no route GET {self.path}", "type": "not_found"}})

            def do_POST(self):
                if self.path.rstrip("/") not in ("/v1/completions", "/completions"):
                    self._send(404, {"error": {"message": f"no route POST {self.path} (only /v1/completions)", "type": "not_found"}})
                    return
                try:
                    body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                    if not isinstance(body, dict):
                        raise CompletionRequestError("body: expected a JSON object")
                    self._send(200, server.complete(body))
                except (CompletionRequestError, json.JSONDecodeError) as error:
                    self._send(400, {"error": {"message": str(error), "type": "invalid_request_error"}})
                except Exception as error:  # the trainer keeps running; the client retries or fails the episode
                    self._send(500, {"error": {"message": f"{type(error).__name__}: {error}", "type": "server_error"}})

        return Handler
