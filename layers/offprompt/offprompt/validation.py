"""The one validation path for request models: HTTP (through Powertools) and direct invocations alike.

A value that is JSON but does not fit a model is `SchemaInvalid` (HTTP 422 `schema_invalid`, `details:
[{loc, type, msg}]`); a value that fits but breaks a domain rule is an `InvalidInput` subclass raised later
by the service (HTTP 400 with its own code).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from offprompt.errors import schema_invalid

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any) -> M:
    """`data` as `model`, or SchemaInvalid listing why not."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise schema_invalid([dict(e) for e in exc.errors(include_url=False)]) from None
