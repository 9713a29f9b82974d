"""A client for AgentGym's env-server HTTP protocol (/create /reset /step /close), which actorgym's
`serve ENV --agentgym-http PORT` speaks (docs/agentgym-http.md). Standard library only; the agent
loop calls it from a thread so verl's event loop never blocks on an env.

Each env flavour names its fields differently; ADAPTERS holds the differences, from the table in
docs/agentgym-http.md ("Field names per env").
"""

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Optional


class EnvServerError(RuntimeError):
    """The env server refused a call or could not be reached: infrastructure, not the agent's failure."""


@dataclass(frozen=True)
class Adapter:
    id_field: str  # the instance id's field in every body
    index_field: str  # the task index's field in /reset
    create_body: str  # "empty" or "index" (SearchQA loads the task at create)
    reset_extra: dict = field(default_factory=dict)


ADAPTERS: dict[str, Adapter] = {
    "babyai": Adapter("id", "data_idx", "empty"),
    "textcraft": Adapter("id", "data_idx", "empty"),
    "sciworld": Adapter("id", "data_idx", "empty"),
    "search": Adapter("env_idx", "id", "index"),
    "web": Adapter("env_idx", "idx", "empty", {"seed": 0}),
}


@dataclass
class StepResult:
    observation: str
    reward: float
    done: bool
    score: Optional[float] = None  # the env's episode score when it reports one (BabyAI, SciWorld)
    success: Optional[bool] = None


class AgentGymHttpEnv:
    """One env instance on one server. `url` may carry a token prefix (http://h:p/token/T)."""

    def __init__(self, url: str, env: str, token: Optional[str] = None, timeout: float = 60.0):
        if env not in ADAPTERS and env != "generic":
            raise ValueError(f"env: unknown AgentGym flavour {env!r}; one of {sorted(ADAPTERS)} or 'generic'")
        self.url = url.rstrip("/")
        self.env = env
        self.adapter = ADAPTERS.get(env, ADAPTERS["babyai"])
        self.token = token
        self.timeout = timeout
        self.instance: Optional[int] = None

    def _post(self, route: str, body: dict) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(f"{self.url}/{route}", json.dumps(body).encode(), headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                reply = json.loads(res.read().decode())
        except urllib.error.HTTPError as e:
            raise EnvServerError(f"{self.url}/{route}: HTTP {e.code}: {e.read().decode()[:300]}") from e
        except (urllib.error.URLError, OSError, TimeoutError) as e:
            raise EnvServerError(f"{self.url}/{route}: {e}") from e
        if isinstance(reply, dict) and "error" in reply:
            raise EnvServerError(f"{self.url}/{route}: {reply.get('code', 'ERROR')}: {reply['error']}")
        return reply

    def reset(self, index: int) -> str:
        """Creates the instance and resets it to task `index`; returns the first observation."""
        a = self.adapter
        created = self._post("create", {"id": index} if a.create_body == "index" else {})
        self.instance = created if isinstance(created, int) else created[a.id_field]
        reply = self._post("reset", {a.id_field: self.instance, a.index_field: index, **a.reset_extra})
        if isinstance(reply, str):
            return reply  # SearchQA answers the bare prompt
        observation = reply["observation"]
        description = reply.get("task_description") or ""
        if self.env == "sciworld" and description:
            return f"{description}\n{observation}"  # as AgentGym's SciWorld client shows it
        return observation

    def step(self, action: str) -> StepResult:
        reply = self._post("step", {self.adapter.id_field: self.instance, "action": action})
        done = bool(reply.get("done", False) or reply.get("terminated", False) or reply.get("truncated", False))
        return StepResult(
            observation=reply["observation"],
            reward=float(reply.get("reward") or 0.0),
            done=done,
            score=float(reply["score"]) if reply.get("score") is not None else None,
            success=reply.get("success"),
        )

    def close(self) -> None:
        """Best effort: the server's idle TTL reaps an instance whose close is lost."""
        if self.instance is None:
            return
        try:
            self._post("close", {self.adapter.id_field: self.instance})
        except EnvServerError:
            pass
        self.instance = None


def read_action(env: str, reply: str) -> Optional[str]:
    """What the env is sent for a reply, or None for a reply that holds no valid action.

    BabyAI, TextCraft, SciWorld: the text after `Action:` up to the line's end, exactly one such line
    (AgentGym's client rule). Search and web: the whole reply (their servers read the tags / code block).
    """
    if env in ("search", "web"):
        return reply
    lines = [line for line in reply.splitlines() if "Action:" in line]
    if len(lines) != 1 or reply.count("Action:") != 1:
        return None
    action = lines[0].split("Action:", 1)[1].strip()
    return action or None
