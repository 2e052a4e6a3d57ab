"""Request models of the account routes (HTTP bodies and direct invocations validate through the same models)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from offprompt.limits import MAX_KEY_NAME_CHARS


class KeyRequest(BaseModel):
    """`POST /keys`: an optional name to tell keys apart (the listing shows it)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=MAX_KEY_NAME_CHARS)
