"""A fake transport for the client's framework doors' unit tests (tests/unit/test_client_langgraph*.py): the real
`OffpromptClient` above `_send`, so the requests it would send are recorded to the byte and answered from a script."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from offprompt_client import OffpromptClient, Response
from offprompt_client.client import _error_from

Sent = tuple[str, str, dict[str, str], Any]  # method, path, query, JSON body


class FakeTransport(OffpromptClient):
    """The real client above `_send`: requests are recorded and answered by `answer(method, path, query, body)`,
    which returns (status, JSON) or raises (a connection error)."""

    def __init__(self, answer: Callable[[str, str, dict[str, str], Any], tuple[int, Any]] | None = None) -> None:
        super().__init__("http://fake", tenant="t")
        self.sent: list[Sent] = []
        self.answer = answer or (lambda method, path, query, body: (204, None))

    def _send(self, request: urllib.request.Request, *, raise_for_status: bool = True) -> Response:
        url = urllib.parse.urlsplit(request.full_url)
        query = dict(urllib.parse.parse_qsl(url.query))
        data = request.data
        body = json.loads(data) if isinstance(data, bytes) else None
        self.sent.append((request.get_method(), url.path, query, body))
        status, reply = self.answer(request.get_method(), url.path, query, body)
        response = Response(status, {}, json.dumps(reply).encode() if reply is not None else b"")
        if status >= 400:
            raise _error_from(response)
        return response
