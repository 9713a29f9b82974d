"""One episode's conversation held as token ids, the way actorgym's ChatEpisode holds it
(policy/hf/agent/chat-episode.ts), so verl trains on exactly the ids the model read and sampled.

The opening renders the chat template once (system, first user turn, generation prompt). Each reply
is kept as the ids the model sampled. Each later observation appends only the ids the template adds
after the reply (its end, the user turn, the generation prompt): the past is never re-rendered, so
no turn's ids drift from what the model saw, and env tokens can be masked 0 by position.
"""

from typing import Any, Optional

_MARKER = "\u0000actorgym-reply\u0000"


class TemplateError(RuntimeError):
    """The chat template neither extends the held conversation nor writes a reply's end after it."""


class TokenConversation:
    def __init__(self, tokenizer: Any, template_kwargs: Optional[dict] = None, stop_ids: Optional[set[int]] = None):
        self.tokenizer = tokenizer
        self.template_kwargs = dict(template_kwargs or {})
        # A reply ends on a special id (<|im_end|>, <|endoftext|>, <|eot_id|>); verl's server stops on them.
        self.stop_ids = set(stop_ids) if stop_ids is not None else set(tokenizer.all_special_ids)
        self.messages: list[dict[str, Any]] = []
        self.held = ""  # the text the held ids spell
        self.stop_text = ""  # the last reply's stop token ('' when cut by max_tokens)

    def render(self, messages: list[dict[str, Any]], add_generation_prompt: bool) -> str:
        return self.tokenizer.apply_chat_template(
            messages, add_generation_prompt=add_generation_prompt, tokenize=False, **self.template_kwargs
        )

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def open(self, messages: list[dict[str, Any]]) -> list[int]:
        """The ids of the opening render: what the model reads before its first reply."""
        self.messages = list(messages)
        self.held = self.render(self.messages, add_generation_prompt=True)
        return self.encode(self.held)

    def reply(self, ids: list[int]) -> str:
        """Takes the sampled ids; returns the reply's text (without its stop token)."""
        stopped = len(ids) > 0 and ids[-1] in self.stop_ids
        content = ids[:-1] if stopped else ids
        text = self.tokenizer.decode(content, skip_special_tokens=False)
        self.stop_text = self.tokenizer.decode(ids[-1:], skip_special_tokens=False) if stopped else ""
        self.held += text + self.stop_text
        self.messages.append({"role": "assistant", "content": text})
        return text

    def next(self, user_content: str) -> list[int]:
        """The ids the template appends for the next user turn (env tokens: the loop masks them 0)."""
        self.messages.append({"role": "user", "content": user_content})
        full = self.render(self.messages, add_generation_prompt=True)
        added = full[len(self.held):] if full.startswith(self.held) else self._after_reply()
        self.held += added
        return self.encode(added)

    def _after_reply(self) -> str:
        """When the template rewrites a past reply (Qwen3 drops <think>), what it writes after the
        last reply's content, less the stop token the model already emitted (as ChatEpisode.afterReply)."""
        last = len(self.messages) - 2
        marked = [dict(m, content=_MARKER) if i == last else m for i, m in enumerate(self.messages)]
        render = self.render(marked, add_generation_prompt=True)
        at = render.rfind(_MARKER)
        after = None if at < 0 else render[at + len(_MARKER):]
        specials = [self.tokenizer.decode([i], skip_special_tokens=False) for i in sorted(self.stop_ids)]
        template_end = None if after is None else next((s for s in specials if s and after.startswith(s)), None)
        if after is not None and self.stop_text == "" and template_end is not None:
            return after  # cut by max_tokens: the template's end closes the reply
        if after is not None and self.stop_text != "":
            end = self.stop_text if after.startswith(self.stop_text) else template_end
            if end is not None:
                return after[len(end):]
        raise TemplateError(
            "the chat template neither extends the conversation held so far nor writes the reply's end token "
            "after a reply, so the next turn cannot be appended to the held token ids"
        )
