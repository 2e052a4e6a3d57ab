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
class LoadedArtifacts:
    """Either the ListArtifact JSON inline (`body`), or a presigned GET of it (`download_url`)."""

    body: str | None
    size: int
    download_url: str | None = None
    expires_in: int | None = None
