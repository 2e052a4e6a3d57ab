"""The ports the memory events use."""

from __future__ import annotations

from dataclasses import dataclass

from offprompt.ports import ChangeDecoder, EventPublisher


@dataclass(frozen=True)
class Events:
    decoder: ChangeDecoder
    publisher: EventPublisher
