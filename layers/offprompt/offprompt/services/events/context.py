"""The ports the memory events use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from offprompt.ports import ChangeDecoder, EventPublisher, FactExtractor, StoredRun
from offprompt.ports.threads import RunReads


@dataclass(frozen=True)
class Events:
    decoder: ChangeDecoder
    publisher: EventPublisher


class RunBodies(Protocol):
    def run_json(self, stored: StoredRun) -> str: ...


@dataclass(frozen=True)
class Extraction:
    """What the example extractor reads runs with, and its model."""

    runs: RunReads
    bodies: RunBodies
    extractor: FactExtractor
