"""ListArtifact: an ordered list of artifacts, polymorphic at every level."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from pydantic import ValidationInfo, field_validator, model_validator

from offprompt.errors import ArtifactError

from .base import BaseArtifact, is_wire, wire_depth


class ListArtifact(BaseArtifact):
    value: list[BaseArtifact] = []
    item_separator: str = "\n\n"
    validate_uniform_types: bool = False
    _extra_keys: ClassVar[tuple[str, ...]] = ("item_separator", "validate_uniform_types")

    # `ListArtifact[TextArtifact]` works as a runtime annotation, as Griptape's generic class does.
    def __class_getitem__(cls, item: Any) -> Any:
        return cls

    @field_validator("value", mode="before")
    @classmethod
    def _items(cls, value: Any, info: ValidationInfo) -> list[BaseArtifact]:
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            raise ValueError("must be a list of artifacts")
        wire, depth = is_wire(info), wire_depth(info)
        items: list[BaseArtifact] = []
        for i, item in enumerate(value):
            if isinstance(item, BaseArtifact):
                items.append(item)
            elif wire:
                try:
                    items.append(BaseArtifact.from_dict(item, _depth=depth + 1))
                except ArtifactError as exc:
                    raise ValueError(f"[{i}] {exc.message}") from None
            else:
                raise ValueError(f"[{i}] is a {type(item).__name__}, not an artifact")
        return items

    @model_validator(mode="after")
    def _uniform(self) -> ListArtifact:
        if self.validate_uniform_types and self.value:
            first = type(self.value[0])
            if not all(isinstance(v, first) for v in self.value):
                raise ValueError("list elements in 'value' are not the same type")
        return self

    def value_to_dict(self) -> list[dict[str, Any]]:
        return [item.to_dict() for item in self.value]

    @property
    def child_type(self) -> type[BaseArtifact] | None:
        return type(self.value[0]) if self.value else None

    def is_type(self, target_type: type) -> bool:
        return bool(self.value) and isinstance(self.value[0], target_type)

    def has_items(self) -> bool:
        return len(self.value) > 0

    def __getitem__(self, key: int) -> BaseArtifact:
        return self.value[key]

    def __iter__(self) -> Iterator[BaseArtifact]:  # type: ignore[override]
        return iter(self.value)

    def __bool__(self) -> bool:
        return len(self.value) > 0

    def __add__(self, other: BaseArtifact) -> ListArtifact:
        return ListArtifact(value=self.value + list(other.value))

    def to_text(self) -> str:
        return self.item_separator.join(v.to_text() for v in self.value)
