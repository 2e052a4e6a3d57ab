"""URL artifacts. offprompt never fetches them (no outbound requests from the service), so no `to_bytes()`."""

from __future__ import annotations

from offprompt.errors import ArtifactError

from .text import _StrArtifact


class UrlArtifact(_StrArtifact):
    def to_bytes(self) -> bytes:
        raise ArtifactError(f"{self.type}.to_bytes() would fetch the URL; offprompt does not fetch URLs")


class ImageUrlArtifact(UrlArtifact):
    pass


class AudioUrlArtifact(UrlArtifact):
    pass


class VideoUrlArtifact(UrlArtifact):
    pass
