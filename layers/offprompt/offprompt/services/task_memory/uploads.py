"""Use case: uploads — a presigned PUT for a large value (`create_upload`), and the checks and decoding that make it
the value of a process-output artifact (`value_from`; process-output reads the object). Handler:
functions/process_output (POST .../uploads)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from offprompt.artifacts import BaseArtifact, TextArtifact
from offprompt.errors import ArtifactError, PayloadTooLarge
from offprompt.identifiers import check_identifier
from offprompt.limits import UPLOAD_EXPIRES_IN
from offprompt.services.task_memory.context import TaskMemory
from offprompt.services.task_memory.errors import UploadError
from offprompt.services.task_memory.results import Upload

_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
_VALUE_FROM_TYPES = ("TextArtifact", "BlobArtifact", "ImageArtifact", "AudioArtifact")


def create_upload(tm: TaskMemory, tenant: str, memory: str) -> Upload:
    check_identifier("memory_name", memory)
    upload_id = uuid.uuid4().hex
    key = tm.keys.upload_prefix(tenant, memory) + upload_id
    url = tm.blobs.presign_put(key, UPLOAD_EXPIRES_IN)
    headers = {"Content-Type": "application/octet-stream", "x-amz-server-side-encryption": "AES256"}
    return Upload(upload_id, url, UPLOAD_EXPIRES_IN, headers, f"s3://{tm.bucket}/{key}")


def upload_key(tm: TaskMemory, tenant: str, memory: str, value_from: Any) -> str:
    if not isinstance(value_from, dict) or len(value_from) != 1:
        raise UploadError('value_from must be {"upload_id": "..."} or {"s3_uri": "s3://..."}')
    prefix = tm.keys.upload_prefix(tenant, memory)
    if "upload_id" in value_from:
        upload_id = value_from["upload_id"]
        if not isinstance(upload_id, str) or not _UPLOAD_ID.match(upload_id):
            raise UploadError("value_from.upload_id is not an upload id from POST .../uploads")
        return prefix + upload_id
    uri = value_from.get("s3_uri")
    if not isinstance(uri, str) or not uri.startswith("s3://"):
        raise UploadError('value_from must be {"upload_id": "..."} or {"s3_uri": "s3://..."}')
    bucket, _, key = uri[len("s3://") :].partition("/")
    if bucket != tm.bucket or not key.startswith(prefix) or not _UPLOAD_ID.match(key[len(prefix) :]):
        raise UploadError("value_from.s3_uri must name an upload of this memory (from POST .../uploads)")
    return key


def checked_upload(tm: TaskMemory, tenant: str, memory: str, envelope: Any, value_from: Any) -> str:
    """The key of the upload `value_from` names, after checking the envelope it fills (pure: no S3 call)."""
    if not isinstance(envelope, dict):
        raise ArtifactError("artifact must be a JSON object")
    if "value" in envelope:
        raise UploadError("give the artifact's value either inline or by value_from, not both")
    kind = envelope.get("type")
    if kind not in _VALUE_FROM_TYPES:
        raise UploadError(f"value_from works for {', '.join(_VALUE_FROM_TYPES)}; store list items one by one")
    return upload_key(tm, tenant, memory, value_from)


def check_upload_size(tm: TaskMemory, size: int | None) -> None:
    """The upload's size (from a HEAD) is there and within `max_upload_bytes`."""
    if size is None:
        raise UploadError("the upload does not exist (not uploaded yet, expired or already used)")
    if size > tm.max_upload_bytes:
        raise PayloadTooLarge(f"the upload is {size} bytes; at most {tm.max_upload_bytes} bytes are accepted")


def upload_shell(envelope: dict[str, Any]) -> BaseArtifact:
    """The artifact the upload fills, with an empty value."""
    return BaseArtifact.from_dict({**envelope, "value": ""})


def fill_upload(artifact: BaseArtifact, data: bytes) -> BaseArtifact:
    """`artifact` with the uploaded bytes as its value (text: decoded as UTF-8)."""
    if isinstance(artifact, TextArtifact):
        try:
            artifact.value = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UploadError(f"the uploaded text is not valid UTF-8 (at byte {exc.start})") from None
    else:
        artifact.value = data
    return artifact
