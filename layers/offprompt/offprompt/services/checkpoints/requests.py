"""The checkpoints API's request bodies (pydantic boundary models; the wire contract of docs/adr/0039). Blobs travel
as LangGraph's `serde.dumps_typed` pair, `{"type", "data": base64}`; ids and sizes are checked by the use cases
(`blobs`, 400 / 413)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from offprompt.limits import IDENTIFIER_MAX_CHARS

#: LangGraph's uuid6 strings and anything a saver might use: 1..64 of [0-9A-Za-z-_.:].
CHECKPOINT_ID_PATTERN = r"^[0-9A-Za-z\-_.:]{1,64}$"
MAX_NS_CHARS = 1024
MAX_WRITES = 1000


class Blob(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    type: str = Field(min_length=1, max_length=64)
    data: str  # base64 (standard or url-safe, padding optional)


class CheckpointPut(BaseModel):
    """`PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    checkpoint_ns: str = Field(default="", max_length=MAX_NS_CHARS)
    parent_checkpoint_id: str | None = Field(default=None, pattern=CHECKPOINT_ID_PATTERN)
    checkpoint: Blob
    metadata: dict[str, Any] = Field(default_factory=dict)


class WriteIn(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    idx: int = Field(ge=-(2**62), le=2**62)
    channel: str = Field(min_length=1, max_length=1024)
    value: Blob


class WritesPut(BaseModel):
    """`PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    checkpoint_ns: str = Field(default="", max_length=MAX_NS_CHARS)
    task_id: str = Field(min_length=1, max_length=IDENTIFIER_MAX_CHARS)
    task_path: str = Field(default="", max_length=MAX_NS_CHARS)
    writes: list[WriteIn] = Field(min_length=1, max_length=MAX_WRITES)


class CheckpointRead(BaseModel):
    """`GET /checkpoint-threads/{thread_id}/checkpoint?checkpoint_ns=&checkpoint_id=` (no id: the latest)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    checkpoint_ns: str = Field(default="", max_length=MAX_NS_CHARS)
    checkpoint_id: str | None = Field(default=None, pattern=CHECKPOINT_ID_PATTERN)


class CheckpointList(BaseModel):
    """`POST /checkpoint-threads/{thread_id}/checkpoints/list`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    checkpoint_ns: str | None = Field(default=None, max_length=MAX_NS_CHARS)
    before: str | None = Field(default=None, pattern=CHECKPOINT_ID_PATTERN)
    filter: dict[str, Any] | None = None
    limit: int | None = Field(default=None, ge=1)
    cursor: str | None = Field(default=None, max_length=4096)


class CheckpointCopy(BaseModel):
    """`POST /checkpoint-threads/{thread_id}/copy`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    target_thread_id: str


class CheckpointPrune(BaseModel):
    """`POST /checkpoint-threads/{thread_id}/prune`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    strategy: Literal["keep_latest", "delete"] = "keep_latest"
