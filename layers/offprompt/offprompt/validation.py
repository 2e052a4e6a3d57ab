"""The one validation path for request models: HTTP (through Powertools) and direct invocations alike.

A value that is JSON but does not fit a model is `SchemaInvalid` (HTTP 422 `schema_invalid`, `details:
[{loc, type, msg}]`); a value that fits but breaks a domain rule is an `InvalidInput` subclass raised later
by the service (HTTP 400 with its own code).
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from offprompt.errors import InvalidInput, schema_invalid

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any) -> M:
    """`data` as `model`, or SchemaInvalid listing why not."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise schema_invalid([dict(e) for e in exc.errors(include_url=False)]) from None


#: A JSON escape of a UTF-16 surrogate (`\ud800`..`\udfff`): only such an escape can put one in parsed JSON.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def check_unicode(value: Any, raw: str | None = None) -> None:
    """InvalidInput when a string anywhere in `value` holds a lone surrogate (JSON can escape one, `"\\ud800"`;
    UTF-8 cannot encode it, so nothing could store it). `raw`: the JSON text `value` came from, so the common case,
    a body with no surrogate escape at all, is a single regex scan."""
    if raw is not None and not _SURROGATE_ESCAPE.search(raw):
        return
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"the request holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}, a half of a UTF-16 pair): "
            "text must be valid Unicode"
        ) from None
