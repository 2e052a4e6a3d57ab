"""What the conversation service's add-run and summarize return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class AddRunResult:
    run: dict[str, Any]
    seq: int
    replayed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "seq": self.seq}


@dataclass(frozen=True)
class SummarizeResult:
    status: Literal["committed", "nothing_to_do", "not_summary_memory", "stale"]
    through_seq: int = 0
    summarized_runs: int = 0
