"""Binary artifacts: Blob, Image and Audio. On the wire, bytes are standard padded base64."""

from __future__ import annotations

import base64
import binascii
import random
import string
import time
from typing import Any, ClassVar

from pydantic import Field, ValidationInfo, field_validator

from .base import BaseArtifact, is_wire


def decode_base64(value: str | bytes) -> bytes:
    """Strict standard base64 (Griptape silently drops invalid characters: `"!!!"` → `b""`; we refuse)."""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("is not valid base64 (standard alphabet, padded)") from None


class BlobArtifact(BaseArtifact):
    """Raw bytes."""

    value: bytes

    @field_validator("value", mode="before")
    @classmethod
    def _to_bytes(cls, value: Any, info: ValidationInfo) -> bytes:
        if is_wire(info):
            if isinstance(value, str | bytes):
                return decode_base64(value)
            raise ValueError("must be a base64 string")
        return value if isinstance(value, bytes) else str(value).encode()

    def value_to_dict(self) -> str:
        return self.base64

    @property
    def base64(self) -> str:
        return base64.b64encode(self.value).decode("ascii")

    @property
    def mime_type(self) -> str:
        return "application/octet-stream"

    def to_bytes(self) -> bytes:
        return self.value

    def to_text(self) -> str:
        return self.value.decode(self.encoding, errors=self.encoding_error_handler)


def _media_name(prefix: str, fmt: str) -> str:
    # Griptape's make_name(): time-based with 4 random characters.
    entropy = "".join(random.choices(string.ascii_lowercase + string.digits, k=4))
    return f"{prefix}_{time.strftime('%y%m%d%H%M%S', time.localtime())}_{entropy}.{fmt}"


class ImageArtifact(BlobArtifact):
    """An image. A name is generated only when none is given; a stored name is never regenerated on load."""

    format: str
    width: int = Field(strict=True)
    height: int = Field(strict=True)
    _extra_keys: ClassVar[tuple[str, ...]] = ("format", "width", "height")

    def _make_name(self) -> str:
        return _media_name("image_artifact", self.format)

    @property
    def mime_type(self) -> str:
        return f"image/{self.format}"

    def to_text(self) -> str:
        return f"Image, format: {self.format}, size: {len(self.value)} bytes"


class AudioArtifact(BlobArtifact):
    """Audio. Names as for ImageArtifact."""

    format: str
    _extra_keys: ClassVar[tuple[str, ...]] = ("format",)

    def _make_name(self) -> str:
        return _media_name("audio_artifact", self.format)

    @property
    def mime_type(self) -> str:
        return f"audio/{self.format}"

    def to_text(self) -> str:
        return f"Audio, format: {self.format}, size: {len(self.value)} bytes"
