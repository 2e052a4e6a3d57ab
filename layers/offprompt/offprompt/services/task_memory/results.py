"""What the task-memory service returns: a process_output answer, an upload slot, loaded artifacts."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from offprompt.artifacts import BaseArtifact


@dataclass(frozen=True)
class ProcessResult:
    """The answer of process_output: the artifact to hand the model, and whether anything was stored."""

    artifact: BaseArtifact
    stored: bool
    namespace: str | None = None
    positions: tuple[int, int] | None = None  # (first, count)
    #: With `consistency="search"`: whether a search finds the stored text now (None: not asked).
    searchable: bool | None = None
    #: A store that created its namespace (blobs): what `load_artifacts(..., ref=)` reads it by without a lookup.
    ref: str | None = None


@dataclass(frozen=True)
class Upload:
    upload_id: str
    url: str
    expires_in: int
    headers: dict[str, str]
    s3_uri: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BlobDownload:
    """One stored blob of a large blob namespace: its artifact JSON without "value", and a GET of its bytes."""

    envelope: dict[str, Any]
    size: int
    download_url: str


@dataclass(frozen=True)
class LoadedArtifacts:
    """One of three answers (see the load-artifacts handler):
    - `body`: the ListArtifact JSON inline;
    - `download_url`: a presigned GET of that JSON, written to S3 (text namespaces past the inline limit);
    - `blobs`: blob namespaces past the inline limit, each stored object's presigned GET (nothing rebuilt).
    """

    body: str | None
    size: int
    download_url: str | None = None
    expires_in: int | None = None
    blobs: list[BlobDownload] | None = None

    def download(self) -> dict[str, Any]:
        """The `Download` answer of a text namespace past the inline limit: `{download_url, expires_in, size}`."""
        return {"download_url": self.download_url, "expires_in": self.expires_in, "size": self.size}

    def blob_listing(self) -> dict[str, Any]:
        """The `BlobDownloads` answer: `{type, size, expires_in, artifacts: [{artifact, size, download_url}]}`."""
        return {
            "type": BLOB_DOWNLOADS,
            "size": self.size,
            "expires_in": self.expires_in,
            "artifacts": [
                {"artifact": b.envelope, "size": b.size, "download_url": b.download_url} for b in self.blobs or []
            ],
        }


BLOB_DOWNLOADS = "BlobDownloads"
