"""BaseArtifact: the typed envelope for every value, with Griptape 1.13's JSON form.

Two ways in, on purpose:
- Python construction (`TextArtifact(1)`) applies Griptape's converters (`str(value)`, `bool(value)`, ...).
- Wire decoding (`BaseArtifact.from_dict/from_json`) is strict: it reads everything Griptape writes and
  rejects anything else with one error type, `ArtifactError`, naming the field that is wrong.
See docs/adr/0001-artifact-compatibility.md for every place we deliberately differ from Griptape.
"""

from __future__ import annotations

import builtins
import json
import math
import uuid
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, model_validator
from pydantic._internal._model_construction import ModelMetaclass

from offprompt.errors import ArtifactError
from offprompt.limits import MAX_ARTIFACT_NESTING as MAX_NESTING
from offprompt.limits import MAX_JSON_DEPTH

from .reference import Reference

_REGISTRY: dict[str, type[BaseArtifact]] = {}


def new_id() -> str:
    """Griptape's id: a uuid4 as 32 lowercase hex characters."""
    return uuid.uuid4().hex


def dumps(obj: Any) -> str:
    """`json.dumps` with Griptape's settings (default separators, ensure_ascii) that also encodes artifacts."""
    try:
        return json.dumps(obj, default=_encode_default)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ArtifactError(f"value is not JSON-serializable: {str(exc)[:200]}") from None


def check_json(value: Any, where: str) -> None:
    """Refuse decoded data that cannot be written back as JSON: nesting deeper than MAX_JSON_DEPTH,
    NaN/Infinity (not JSON; `json.dumps` would write `NaN`) and integers too long to print. Iterative."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if depth >= MAX_JSON_DEPTH:
                raise ArtifactError(f"{path[:200]}: JSON nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(item, dict):
                stack.extend((v, f"{path}.{str(k)[:50]}", depth + 1) for k, v in item.items())
            else:
                stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
        elif isinstance(item, float) and not math.isfinite(item):
            raise ArtifactError(f"{path[:200]}: {item} is not a valid JSON number")
        elif isinstance(item, int) and item.bit_length() > 14_000:
            raise ArtifactError(f"{path[:200]}: integer too large")


def _encode_default(obj: Any) -> Any:
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def to_jsonable(value: Any) -> Any:
    """Turn artifacts nested in plain containers (e.g. in `meta`) into their dicts."""
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, BaseArtifact | Reference):
        return value.to_dict()
    return value


def is_wire(info: ValidationInfo) -> bool:
    """True when validating a decoded payload (strict), False for Python construction (converters)."""
    return bool(info.context and info.context.get("wire"))


def wire_depth(info: ValidationInfo) -> int:
    return int(info.context.get("depth", 0)) if info.context else 0


class _ArtifactMeta(ModelMetaclass):
    """Lets `TextArtifact("x")` pass `value` positionally, as Griptape does.

    Done in the metaclass rather than `__init__` because pydantic routes `model_validate` through a custom
    `__init__` (dropping the validation context that tells wire decoding from Python construction).
    """

    def __call__(cls, *args: Any, **data: Any) -> Any:
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}() takes the value as its only positional argument")
        if args:
            data["value"] = args[0]
        try:
            return super().__call__(**data)
        except ValidationError as exc:
            raise _artifact_error(cls.__name__, exc) from None


class BaseArtifact(BaseModel, metaclass=_ArtifactMeta):
    """Common fields and behaviour of every artifact kind. Abstract: use a concrete subclass."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, validate_assignment=False)

    id: str = Field(default_factory=new_id)
    reference: Reference | None = None
    meta: dict[str, Any] = Field(default_factory=dict)
    name: str = ""
    value: Any
    # Not serialized, as in Griptape.
    encoding: str = Field(default="utf-8", exclude=True)
    encoding_error_handler: str = Field(default="strict", exclude=True)

    # Keys a subclass adds to the JSON form after `value`, in Griptape's order.
    _extra_keys: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            _REGISTRY[cls.__name__] = cls

    @model_validator(mode="after")
    def _default_name(self) -> Self:
        if "name" not in self.model_fields_set:
            self.name = self._make_name()
        return self

    def _make_name(self) -> str:
        return self.id

    # ---- Griptape's public surface -------------------------------------------------------------------
    @property
    def type(self) -> str:
        return type(self).__name__

    def to_text(self) -> str:
        raise NotImplementedError

    def to_bytes(self) -> bytes:
        return self.to_text().encode(self.encoding, errors=self.encoding_error_handler)

    def value_to_dict(self) -> Any:
        """The JSON form of `value` (overridden where it is not the value itself)."""
        return to_jsonable(self.value)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "id": self.id,
            "reference": self.reference.to_dict() if self.reference is not None else None,
            "meta": to_jsonable(self.meta),
            "name": self.name,
            "value": self.value_to_dict(),
        }
        for key in self._extra_keys:
            out[key] = getattr(self, key)
        return out

    def to_json(self) -> str:
        return dumps(self.to_dict())

    def __str__(self) -> str:
        return self.to_text()

    def __bool__(self) -> bool:
        return bool(self.value)

    def __len__(self) -> int:
        return len(self.value)

    # ---- decoding ------------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, *, _depth: int = 0) -> Self:
        """Decode Griptape's dict form; dispatches on `"type"`. Raises ArtifactError on anything invalid."""
        if not isinstance(data, dict):
            raise ArtifactError(f"an artifact must be a JSON object, got {_json_kind(data)}")
        if _depth > MAX_NESTING:
            raise ArtifactError(f"artifacts nested deeper than {MAX_NESTING} levels")
        payload = dict(data)
        # Griptape accepts `module_name` for class lookup; we accept it and never use it (no imports by name).
        payload.pop("module_name", None)
        type_name = payload.pop("type", None)
        target = cls._resolve(type_name)
        if _depth == 0:
            check_json(payload, target.__name__)
        try:
            return target.model_validate(payload, context={"wire": True, "depth": _depth})
        except ValidationError as exc:
            raise _artifact_error(target.__name__, exc) from None

    @classmethod
    def _resolve(cls, type_name: Any) -> builtins.type[Self]:
        if type_name is None:
            if cls is BaseArtifact or cls._is_abstract():
                raise ArtifactError(f'"type" is required to decode a {cls.__name__}')
            return cls
        if not isinstance(type_name, str):
            raise ArtifactError(f'"type" must be a string, got {_json_kind(type_name)}')
        target = _REGISTRY.get(type_name)
        if target is None:
            known = ", ".join(sorted(n for n, c in _REGISTRY.items() if not c._is_abstract()))
            raise ArtifactError(f'unknown artifact type "{type_name[:100]}" (known: {known})')
        if not issubclass(target, cls):
            raise ArtifactError(f'expected a {cls.__name__}, got "{type_name}"')
        return target

    @classmethod
    def _is_abstract(cls) -> bool:
        return cls.to_text is BaseArtifact.to_text

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ArtifactError(f"not valid JSON: {str(exc)[:200]}") from None
        return cls.from_dict(data)


def registry() -> dict[str, type[BaseArtifact]]:
    """Every concrete artifact kind by its `type` name."""
    return {name: c for name, c in _REGISTRY.items() if not c._is_abstract()}


def _json_kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _artifact_error(where: str, exc: ValidationError) -> ArtifactError:
    problems = []
    for err in exc.errors(include_url=False)[:5]:
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        problems.append(f"{where}.{loc}: {msg}" if loc else f"{where}: {msg}")
    return ArtifactError("; ".join(problems), details={"errors": problems})
