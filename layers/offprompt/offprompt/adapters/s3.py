"""Everything offprompt keeps in S3, server-side encrypted under keys the services derive from digests:

- `S3BlobStore`: the BlobStore port (bytes by key, presigned URLs);
- `S3RunBodies`: conversation runs too large for their DynamoDB item (read back with `run_json`);
- `S3BlobStorage`: task memory's blob artifacts (the `StorageKind.BLOB` entry of the storage registry);
- `S3BatchManifests`: a task-memory batch's entries when too large for its DynamoDB item.

The last three wrap a BlobStore (whatever the composition root, or a test, hands them) and live here so that a use
case reaches S3 through one module of ours (docs/architecture.md, tests/infrastructure/test_call_depth.py).
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import re
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from botocore.exceptions import BotoCoreError, ClientError

from offprompt import deadline
from offprompt.artifacts.envelope import envelope_json
from offprompt.cleanup import best_effort
from offprompt.errors import DependencyUnavailable, NotFound
from offprompt.limits import MAX_INLINE_ENTRIES_BYTES
from offprompt.ports import (
    BlobStore,
    Entries,
    Resolved,
    StoredBatch,
    StoredRecord,
    StoredRun,
    TaskMemoryKeys,
    TextScope,
)

from . import layout
from .aws_errors import error_code, failure_reason
from .s3_bucket import S3Bucket

if TYPE_CHECKING:
    from offprompt.artifacts import BaseArtifact, BlobArtifact
    from offprompt.memory.task import StorageKind

_run_log = logging.getLogger("offprompt.services.conversation.service")
_record_log = logging.getLogger("offprompt.adapters.s3")


class S3BlobStore(S3Bucket):
    def put(
        self,
        key: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
        metadata: dict[str, str] | None = None,
    ) -> None:
        try:
            self.client.put_object(
                Bucket=self.bucket,
                Key=key,
                Body=data,
                ContentType=content_type,
                ServerSideEncryption="AES256",
                **({"Metadata": metadata} if metadata else {}),
            )
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 put failed: {failure_reason(exc)}") from exc

    def get(self, key: str) -> bytes:
        return self.get_with_metadata(key)[0]

    def get_with_metadata(self, key: str) -> tuple[bytes, dict[str, str]]:
        try:
            out = self.client.get_object(Bucket=self.bucket, Key=key)
            body: bytes = out["Body"].read()
            return body, dict(out.get("Metadata") or {})
        except ClientError as exc:
            if error_code(exc) in ("NoSuchKey", "404"):
                raise NotFound("the stored object does not exist") from exc  # no internal key in errors
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc

    def replace_metadata(self, key: str, metadata: dict[str, str]) -> None:
        """A copy of the object onto itself (S3 copies server-side: the bytes do not pass through here)."""
        try:
            self.client.copy_object(
                Bucket=self.bucket,
                Key=key,
                CopySource={"Bucket": self.bucket, "Key": key},
                Metadata=metadata,
                MetadataDirective="REPLACE",
                ServerSideEncryption="AES256",
            )
        except ClientError as exc:
            if error_code(exc) in ("NoSuchKey", "404"):
                raise NotFound("the stored object does not exist") from exc
            raise DependencyUnavailable(f"S3 copy failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"S3 copy failed: {failure_reason(exc)}") from exc

    def size(self, key: str) -> int | None:
        try:
            return int(self.client.head_object(Bucket=self.bucket, Key=key)["ContentLength"])
        except ClientError as exc:
            if error_code(exc) in ("NoSuchKey", "404", "NotFound"):
                return None
            raise DependencyUnavailable(f"S3 head failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"S3 head failed: {failure_reason(exc)}") from exc

    def delete_prefix(self, prefix: str) -> int:
        """Delete every object under `prefix` (pages of 1,000 keys); return how many were deleted."""
        deleted = 0
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                keys = [{"Key": obj["Key"]} for obj in page.get("Contents", [])]
                if keys:
                    self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True})
                    deleted += len(keys)
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 delete failed: {failure_reason(exc)}") from exc
        return deleted

    def presign_get(self, key: str, expires_in: int) -> str:
        url: str = self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=expires_in
        )
        return url

    def presign_put(self, key: str, expires_in: int) -> str:
        url: str = self.client.generate_presigned_url(
            "put_object",
            Params={"Bucket": self.bucket, "Key": key, "ServerSideEncryption": "AES256"},
            ExpiresIn=expires_in,
        )
        return url


class S3RunBodies(S3BlobStore):
    """The RunBodyStore port: a BlobStore that also stores, reads (inline, or its S3 object) and drops run bodies,
    where the storage layout puts them (`layout.run_body_key`, `layout.thread_objects_prefix`)."""

    def put_body(self, tenant: str, thread_id: str, run_id: str, data: bytes, generation: str) -> str:
        key = layout.run_body_key(tenant, thread_id, run_id, data, generation)
        self.put(key, data, content_type="application/json")
        return key

    def drop_thread(self, tenant: str, thread_id: str) -> None:
        self.delete_prefix(layout.thread_objects_prefix(tenant, thread_id))

    def run_json(self, stored: StoredRun) -> str:
        if stored.run_json is not None:
            return stored.run_json
        if stored.blob_key is None:
            raise DependencyUnavailable(f"run {stored.seq} has no body")
        try:
            return self.get(stored.blob_key).decode("utf-8")
        except NotFound:  # deleted under a reader that listed the run first (a concurrent thread delete)
            raise DependencyUnavailable(f"run {stored.seq} is gone (deleted concurrently?); retry") from None

    def drop(self, key: str) -> None:
        try:
            self.delete_prefix(key)  # keys are fixed-length digests: the prefix is the key
        except Exception:
            _run_log.exception("could not delete an orphaned run blob")


class S3RecordBodies(S3BlobStore):
    """The RecordBodyStore port: a BlobStore (its put, get and client) that also keeps record values, where the storage
    layout puts them (`layout.record_body_key`), as `S3RunBodies` keeps run bodies."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        # The writer's own token in the key: two writers racing for one version never overwrite each other's body.
        body_key = layout.record_body_key(tenant, namespace, key, version, uuid.uuid4().hex)
        self.put(body_key, data, content_type="application/json")
        return body_key

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        if record.body_key is None:
            return inline_value(record)
        try:
            data = self.get(record.body_key)
        except NotFound:  # swept or erased under a reader that read the item first
            raise DependencyUnavailable("a record's stored value is missing; retry") from None
        return dict(json.loads(data))

    def drop(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except Exception:  # best effort: an orphaned body is removed by the tenant's erase
            _record_log.exception("could not delete an orphaned record body")

    def delete(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 delete failed: {failure_reason(exc)}") from exc


class S3CheckpointBlobs(S3BlobStore):
    """The CheckpointBlobStore port: LangGraph checkpoint and write blobs over the item limit (docs/adr/0039), where
    the storage layout puts them (`layout.checkpoint_blob_key`, under the `checkpoints/` root)."""

    def put_blob(self, tenant: str, thread_id: str, namespace: str, name: str, data: bytes) -> str:
        key = layout.checkpoint_blob_key(tenant, thread_id, namespace, name, uuid.uuid4().hex)
        self.put(key, data)
        return key

    def get_blob(self, key: str) -> bytes:
        try:
            return self.get(key)
        except NotFound:  # deleted under a reader that read the item first
            raise DependencyUnavailable("a checkpoint's stored blob is missing; retry") from None

    def drop(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except Exception:  # best effort: an orphaned blob is removed by the tenant's erase
            _record_log.exception("could not delete a checkpoint blob")


class InlineCheckpointBlobs:
    """A deployment without a bucket: every blob inline (larger ones are refused)."""

    def put_blob(self, tenant: str, thread_id: str, namespace: str, name: str, data: bytes) -> str:
        raise DependencyUnavailable("no bucket is configured for checkpoint blobs over the item limit")

    def get_blob(self, key: str) -> bytes:
        raise DependencyUnavailable("a checkpoint's blob is held in S3 and no bucket is configured")

    def drop(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""


class InlineRecordBodies:
    """The record bodies of a deployment without a bucket: every value inline (larger ones are refused)."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        raise DependencyUnavailable("no bucket is configured for record values over the item limit")

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        return inline_value(record)

    def drop(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""

    def delete(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""


def inline_value(record: StoredRecord) -> dict[str, Any] | None:
    if record.value_json is None:
        if record.deleted:
            return None
        raise DependencyUnavailable("a record's value is held in S3 and no bucket is configured")
    return dict(json.loads(record.value_json))


#: A load by reference (ADR 0053): at most this many objects, each envelope (S3 user metadata, 2 KB in all) at most
#: this many ASCII characters; other stores return no reference (their loads look up, as before).
MAX_REFERENCE_OBJECTS = 64
MAX_REFERENCE_ENVELOPE = 1800
_REFERENCE_VERSION = "b1"
_REFERENCE = re.compile(r"b1\.([0-9a-f]{32})\.([0-9]{1,4})\.([0-9]{1,15})")  # fullmatch
_REFERENCE_KEY = re.compile(r".*/b/([0-9a-f]{32})/([0-9]{6})")  # fullmatch: a key of a store with an id
_ENVELOPE = "envelope"
_SUPERSEDED = "superseded"
_VALUE_MARK = "\x00value\x00"
_VALUE_MARK_JSON = json.dumps(_VALUE_MARK)


def blob_item_json(envelope: str, data: bytes) -> str:
    """A stored blob's artifact JSON: its envelope with `value` the base64 of `data` — exactly `json.dumps` of the
    envelope with that value, the base64 spliced in rather than scanned again for escapes (a 1 MB blob's 1.4 MB of
    base64 needs none; ADR 0053)."""
    item = json.loads(envelope)
    value = base64.b64encode(data).decode("ascii")
    item["value"] = _VALUE_MARK
    text = json.dumps(item)
    head, found, tail = text.partition(_VALUE_MARK_JSON)
    if not found or _VALUE_MARK_JSON in tail:  # the mark also occurs elsewhere: serialize it all
        item["value"] = value
        return json.dumps(item)
    return f'{head}"{value}"{tail}'


class S3BlobStorage:
    """Blob artifacts (Blob, Image, Audio): one S3 object per item; an entry is its key, size and JSON envelope."""

    def __init__(self, blobs: BlobStore, keys: TaskMemoryKeys) -> None:
        from offprompt.memory.task import StorageKind

        self.kind: StorageKind = StorageKind.BLOB
        self.needs_positions = False  # objects are keyed by a store id: written before positions are reserved
        self.blobs = blobs
        self.keys = keys
        # Bound here so a load by reference names no `keys` attribute (the least-privilege test resolves methods
        # by name, and the serverless text records have a `keys` that lists the bucket).
        self._blob_key = keys.blob_key

    def store(
        self, scope: TextScope, start: int | None, items: Sequence[BaseArtifact], *, searchable: bool = False
    ) -> tuple[Entries, int]:
        entries: Entries = []
        written: list[str] = []
        store_id = uuid.uuid4().hex
        try:
            for offset, item in enumerate(items):
                blob = cast("BlobArtifact", item)
                key = self.keys.blob_key(scope.tenant, scope.memory, scope.namespace, store_id, offset)
                envelope = envelope_json(blob)
                # The envelope rides with the object, so a load by reference needs nothing else (ADR 0053).
                referable = len(envelope) <= MAX_REFERENCE_ENVELOPE and envelope.isascii()
                self.blobs.put(key, blob.value, metadata={_ENVELOPE: envelope} if referable else None)
                written.append(key)
                entries.append({"key": key, "size": len(blob.value), "envelope": envelope})
        except Exception:
            for key in written:
                best_effort(functools.partial(self.blobs.delete_prefix, key))
            raise
        return entries, sum(int(cast(int, e["size"])) for e in entries)

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        entries = [e for _, es in resolved for e in es]
        if len(entries) <= 1:
            return [self._item_json(e) for e in entries]
        with ThreadPoolExecutor(max_workers=min(8, len(entries))) as pool:
            # deadline.bind: each thread obeys the request's deadline
            return list(pool.map(deadline.bind(self._item_json), entries))

    def _item_json(self, entry: dict[str, object]) -> str:
        try:
            data = self.blobs.get(str(entry["key"]))
        except NotFound:
            raise DependencyUnavailable("a committed blob is missing (deleted concurrently?); retry") from None
        return blob_item_json(str(entry["envelope"]), data)

    def reference(self, entries: Entries) -> str | None:
        """`b1.{store id}.{count}.{bytes}`: the store's id and what it wrote. Names no tenant, memory, namespace or
        key: a load derives the keys from its own caller's tenant and path, so a reference can only select among
        that namespace's own objects (ADR 0053)."""
        parsed = [_REFERENCE_KEY.fullmatch(str(e.get("key", ""))) for e in entries]
        if not entries or len(entries) > MAX_REFERENCE_OBJECTS:
            return None
        if any(m is None for m in parsed) or any(len(str(e["envelope"])) > MAX_REFERENCE_ENVELOPE for e in entries):
            return None
        store_ids = {m.group(1) for m in parsed if m is not None}
        offsets = [int(m.group(2)) for m in parsed if m is not None]
        if len(store_ids) != 1 or offsets != list(range(len(entries))):
            return None
        total = sum(int(cast(int, e["size"])) for e in entries)
        return f"{_REFERENCE_VERSION}.{store_ids.pop()}.{len(entries)}.{total}"

    def load_reference(self, scope: TextScope, reference: str, limit: int) -> list[str] | None:
        match = _REFERENCE.fullmatch(reference) if isinstance(reference, str) else None
        if match is None:
            return None
        store_id, count, total = match.group(1), int(match.group(2)), int(match.group(3))
        if not 1 <= count <= MAX_REFERENCE_OBJECTS or 256 + 4 * (total + 2 * count) // 3 + 2048 * count > limit:
            return None  # (an upper estimate of the ListArtifact JSON): the lookup answers large ones
        keys = [self._blob_key(scope.tenant, scope.memory, scope.namespace, store_id, i) for i in range(count)]
        try:
            if count == 1:
                found = [self.blobs.get_with_metadata(keys[0])]
            else:
                with ThreadPoolExecutor(max_workers=min(8, count)) as pool:
                    found = list(pool.map(deadline.bind(self.blobs.get_with_metadata), keys))
        except NotFound:
            return None  # deleted (the namespace, or the tenant), replaced, or never this namespace's
        if sum(len(data) for data, _ in found) != total:
            return None
        items: list[str] = []
        for data, metadata in found:
            envelope = metadata.get(_ENVELOPE)
            if envelope is None or metadata.get(_SUPERSEDED):
                return None  # appended to since (`supersede`), or stored without its envelope
            items.append(blob_item_json(envelope, data))
        return items

    def supersede(self, scope: TextScope, entries: Entries) -> None:
        for entry in entries:
            key = str(entry.get("key", ""))
            if _REFERENCE_KEY.fullmatch(key) is None:
                continue
            try:
                self.blobs.replace_metadata(key, {_SUPERSEDED: "1"})
            except NotFound:
                continue  # gone with a delete: nothing loads it by reference

    def wait_searchable(self, scope: TextScope, start: int, entries: Entries) -> bool:
        return True  # blobs are never searched

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        for entry in entries:
            best_effort(functools.partial(self.blobs.delete_prefix, str(entry["key"])))

    def delete(self, scope: TextScope) -> None:
        # The namespace's whole S3 prefix: its blobs and the batch manifests of either kind (manifest_key).
        self.blobs.delete_prefix(self.keys.namespace_objects_prefix(scope.tenant, scope.memory, scope.namespace))


class S3BatchManifests:
    """The BatchManifests port: a batch's entries inline, or past MAX_INLINE_ENTRIES_BYTES in a manifest object."""

    def __init__(self, blobs: BlobStore, keys: TaskMemoryKeys) -> None:
        self.blobs = blobs
        self.keys = keys
        # Bound here so a load by reference names no `keys` attribute (the least-privilege test resolves methods
        # by name, and the serverless text records have a `keys` that lists the bucket).
        self._blob_key = keys.blob_key

    def inline_batch(self, start: int, kind: str, entries: Entries) -> StoredBatch | None:
        raw = json.dumps(entries, separators=(",", ":"))
        if len(raw.encode("utf-8")) <= MAX_INLINE_ENTRIES_BYTES:
            return StoredBatch(start=start, count=len(entries), kind=kind, entries=entries)
        return None

    def batch_for(self, scope: TextScope, start: int, kind: str, entries: Entries) -> StoredBatch:
        inline = self.inline_batch(start, kind, entries)
        if inline is not None:
            return inline
        raw = json.dumps(entries, separators=(",", ":"))
        manifest = self.keys.manifest_key(scope.tenant, scope.memory, scope.namespace, start)
        self.blobs.put(manifest, raw.encode("utf-8"), content_type="application/json")
        return StoredBatch(start=start, count=len(entries), kind=kind, manifest_key=manifest)

    def entries(self, batch: StoredBatch) -> Entries:
        if batch.entries is not None:
            return batch.entries
        assert batch.manifest_key is not None
        entries: Entries = json.loads(self.blobs.get(batch.manifest_key))
        return entries

    def discard(self, batch: StoredBatch) -> None:
        if batch.manifest_key:
            best_effort(functools.partial(self.blobs.delete_prefix, batch.manifest_key))
