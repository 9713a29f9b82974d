"""A client of actorgym's rollout service (`actorgym rollout-server`): post a batch, read the records as they stream.

POST /v1/rollouts answers `application/x-ndjson`: `{"type":"started","id","episodes"}`, one
`{"type":"record","record": <token record>}` per finished episode, then `{"type":"done","summary"}`
or `{"type":"error","message"}`. Closing the connection cancels the batch on the service's side,
which is what happens when this generator is closed early or raises.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Iterator


class RolloutServiceError(RuntimeError):
    """The service refused the batch or failed it; the message is the service's."""


def stream_rollouts(service_url: str, batch: dict[str, Any], *, token: str | None = None,
                    timeout: float = 600.0) -> Iterator[dict[str, Any]]:
    """Yield each token record of `batch`; return after `done`, raise RolloutServiceError on `error`."""
    request = urllib.request.Request(
        service_url.rstrip("/") + "/v1/rollouts", data=json.dumps(batch).encode(), method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/x-ndjson",
                 **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")[:2000]
        raise RolloutServiceError(f"POST {request.full_url}: HTTP {error.code}: {detail}") from None
    except urllib.error.URLError as error:
        raise RolloutServiceError(f"POST {request.full_url}: the rollout service is unreachable ({error.reason}); "
                                  "start it with `actorgym rollout-server --port P`") from None
    with response:
        finished = False
        for raw in response:
            line = raw.strip()
            if not line:
                continue
            event = json.loads(line)
            kind = event.get("type")
            if kind == "record":
                yield event["record"]
            elif kind == "error":
                raise RolloutServiceError(f"the rollout service failed the batch: {event.get('message')}")
            elif kind == "done":
                finished = True
                break
        if not finished:
            raise RolloutServiceError("the rollout service closed the stream before `done`")
