"""Reference: where an artifact came from (Griptape's `griptape.common.Reference`)."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Reference(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")

    # Accepted on input (Griptape always writes it), always written back.
    type: Literal["Reference"] = Field(default="Reference", exclude=True)
    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    title: str
    authors: list[str] = Field(default_factory=list)
    source: str | None = None
    year: str | None = None
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "Reference",
            "id": self.id,
            "title": self.title,
            "authors": list(self.authors),
            "source": self.source,
            "year": self.year,
            "url": self.url,
        }
