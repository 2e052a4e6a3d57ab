"""The extraction API's request bodies (pydantic boundary models). The namespace template and a custom strategy's
instructions are checked by the use case with `offprompt.memory.extraction` (400 `invalid_input`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from offprompt.memory.extraction import MAX_AFTER_RUNS, MAX_IDLE_SECONDS, MAX_INSTRUCTIONS_CHARS


class Trigger(BaseModel):
    """When a conversation has settled: `after_runs` new runs, the newest `idle_seconds` old."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    after_runs: int = Field(default=1, ge=1, le=MAX_AFTER_RUNS)
    idle_seconds: int = Field(default=0, ge=0, le=MAX_IDLE_SECONDS)


class StrategyPut(BaseModel):
    """`PUT /extraction/strategies/{name}`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    type: Literal["facts", "preferences", "summary", "custom"]
    namespace: str = Field(min_length=1, max_length=600)
    trigger: Trigger = Field(default_factory=Trigger)
    instructions: str | None = Field(default=None, max_length=MAX_INSTRUCTIONS_CHARS)
    enabled: bool = True
