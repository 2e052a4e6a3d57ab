"""Blobs and identifiers at the checkpoints boundary (pure): base64 decoded and size-checked (400 / 413), whether a
blob stays inline; thread and checkpoint ids checked (docs/adr/0039). The use cases store and read S3 themselves."""

from __future__ import annotations

import base64
import binascii
import re

from offprompt.errors import InvalidInput, PayloadTooLarge
from offprompt.identifiers import check_characters, check_identifier
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import CHECKPOINT_ID_PATTERN, Blob

#: The most bytes one blob (a checkpoint or a pending write's value) may hold once decoded.
MAX_BLOB_BYTES = 4 * 1024 * 1024
#: What an item holds besides its blob and metadata (keys, ids, names): kept out of the inline budget.
ITEM_OVERHEAD = 4096

_ID = re.compile(CHECKPOINT_ID_PATTERN)
_B64 = re.compile(r"^[A-Za-z0-9+/_-]*={0,2}$")


def check_thread(thread_id: object) -> str:
    return check_identifier("thread_id", thread_id)


def check_names(checkpoint_ns: str, task_id: str | None = None) -> None:
    """A namespace ("" the root) and a task id are stored and shown: no control, bidi or format characters."""
    check_characters("checkpoint_ns", checkpoint_ns)
    if task_id is not None:
        check_characters("task_id", task_id)


def check_checkpoint_id(checkpoint_id: object) -> str:
    if not isinstance(checkpoint_id, str) or not _ID.match(checkpoint_id):
        raise InvalidInput("checkpoint_id must be 1..64 characters of [0-9A-Za-z-_.:]")
    return checkpoint_id


def decode(blob: Blob, what: str) -> bytes:
    text = blob.data
    if len(text) > (MAX_BLOB_BYTES * 4) // 3 + 8:
        raise PayloadTooLarge(f"{what} is larger than {MAX_BLOB_BYTES} bytes", details={"limit": MAX_BLOB_BYTES})
    if not _B64.match(text):
        raise InvalidInput(f"{what}.data must be base64")
    try:
        data = base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_") + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise InvalidInput(f"{what}.data must be base64") from None
    if len(data) > MAX_BLOB_BYTES:
        raise PayloadTooLarge(f"{what} is larger than {MAX_BLOB_BYTES} bytes", details={"limit": MAX_BLOB_BYTES})
    return data


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def inline(ck: Checkpoints, size: int, other: int) -> bool:
    """Whether a blob stays in its item (with `other` bytes of metadata) under the budget; PayloadTooLarge when it
    does not and the deployment has no bucket."""
    if size + other + ITEM_OVERHEAD < ck.inline_bytes:
        return True
    if not ck.big_blobs:
        raise PayloadTooLarge(
            f"blobs over {ck.inline_bytes} bytes need the deployment's bucket, and none is configured",
            details={"limit": ck.inline_bytes},
        )
    return False
