"""Export a tenant: its DynamoDB items, S3 objects and OpenSearch documents as JSONL files plus object files.

Layout (format `offprompt-tenant-export`, version 1; docs/adr/0024-tenant-export-erase.md):

    manifest.json     format, version, tenant, export_id, created_at, counts, files [{name, size, sha256, url?}]
    dynamodb.jsonl    {"kind": "thread"|"run"|..., "item": <the item in DynamoDB JSON>}   one per item
    opensearch.jsonl  {"id": <document id>, "source": <the document>}                      one per text chunk
    s3.jsonl          {"key", "file", "size", "sha256", "content_type"}                     one per object
    objects/NNNNNNNN  each object's bytes

The tenant is indexed first (`backfill.index_tenant`); while that is unfinished the export writes nothing and says
it is incomplete (`complete: false`, HTTP 202; docs/adr/0043).

A run's Griptape JSON is inside its item (`run`) or in the object its `blob_key` names; a text artifact is its
chunk documents (chunk 0 carries the envelope); a blob artifact is its object. The import writes the same items,
documents and objects, so loads and run lists are byte-identical in the importing deployment.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from offprompt.services.tenant_data.backfill import RESUME_AFTER_S, IndexProgress, index_tenant
from offprompt.services.tenant_data.ports import ExportSink, TenantStores

FORMAT = "offprompt-tenant-export"
VERSION = 1
MANIFEST = "manifest.json"
JSONL = "application/x-ndjson"


@dataclass
class ExportResult:
    tenant: str
    export_id: str
    counts: dict[str, int]
    manifest: dict[str, Any]
    manifest_url: str | None = None
    scan_read_units: float = 0.0
    files: list[str] = field(default_factory=list)
    #: The tenant's indexing, when this invocation's budget ended before it was complete: nothing was exported.
    indexing: IndexProgress | None = None

    @property
    def complete(self) -> bool:
        return self.indexing is None

    def to_dict(self) -> dict[str, Any]:
        if self.indexing is not None:
            return {
                "tenant": self.tenant,
                "status": "indexing",
                "complete": False,
                "retry_after": RESUME_AFTER_S,
                "indexing": self.indexing.to_dict(),
            }
        return {
            "tenant": self.tenant,
            "export_id": self.export_id,
            "manifest_url": self.manifest_url,
            "counts": self.counts,
            "complete": True,
        }


def _binary(value: object) -> str:
    """A DynamoDB binary value (`B`, `BS`; LangGraph checkpoint blobs, docs/adr/0039) in JSON: base64, as DynamoDB's
    own JSON writes it (`importer.binary_values` reads it back)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _line(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, default=_binary)
    return text.encode("utf-8") + b"\n"


def export_tenant(
    tenant: str, stores: TenantStores, sink: ExportSink, *, export_id: str, created_at: str
) -> ExportResult:
    # Nothing is exported before the tenant index lists every partition of the tenant (docs/adr/0043): an export
    # that would miss data says it is incomplete (and writes no file) instead.
    progress = index_tenant(tenant, stores, created_at)
    if not progress.complete:
        return ExportResult(tenant, export_id, {}, {}, scan_read_units=progress.read_units, indexing=progress)
    counts: Counter[str] = Counter()
    files: list[dict[str, Any]] = []

    def write(name: str, data: bytes, content_type: str) -> None:
        sink.write_file(name, data, content_type)
        files.append({"name": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})

    # DynamoDB: the items of the exported kinds, in (pk, sk) order so two exports of the same data are equal.
    items = []
    for item in stores.items.items(tenant):
        kind = stores.items.kind(item, tenant)
        if kind in stores.items.exported_kinds:
            items.append((kind, item))
            counts[f"dynamodb.{kind}"] += 1
    items.sort(key=lambda ki: (ki[1]["pk"]["S"], ki[1]["sk"]["S"]))
    write("dynamodb.jsonl", b"".join(_line({"kind": k, "item": i}) for k, i in items), JSONL)
    counts["dynamodb"] = len(items)

    # OpenSearch: every chunk document.
    docs = b"".join(_line({"id": doc_id, "source": source}) for doc_id, source in stores.documents.scan(tenant))
    counts["opensearch"] = docs.count(b"\n")
    write("opensearch.jsonl", docs, JSONL)

    # S3: each stored object as its own file (big runs, blobs, batch manifests).
    index: list[bytes] = []
    for prefix in stores.objects.prefixes(tenant, include_transient=False):
        for object_key, _size in stores.objects.list(prefix):
            data, content_type = stores.objects.get(object_key)
            name = f"objects/{len(index):08d}"
            write(name, data, content_type)
            index.append(
                _line(
                    {
                        "key": object_key,
                        "file": name,
                        "size": len(data),
                        "sha256": hashlib.sha256(data).hexdigest(),
                        "content_type": content_type,
                    }
                )
            )
    counts["s3"] = len(index)
    write("s3.jsonl", b"".join(index), JSONL)

    manifest: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "tenant": tenant,
        "export_id": export_id,
        "created_at": created_at,
        "counts": dict(sorted(counts.items())),
        "files": [{**f, **({"url": url} if (url := sink.url(f["name"])) else {})} for f in files],
    }
    sink.write_file(MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8"), "application/json")
    return ExportResult(
        tenant=tenant,
        export_id=export_id,
        counts=dict(sorted(counts.items())),
        manifest=manifest,
        manifest_url=sink.url(MANIFEST),
        scan_read_units=progress.read_units + stores.items.scan_read_units,
        files=[f["name"] for f in files],
    )


class S3ExportSink:
    """Files under the export's prefix in the deployment's bucket, handed out by presigned GETs."""

    def __init__(self, objects: Any, prefix: str, expires_in: int) -> None:
        self.objects = objects
        self.prefix = prefix
        self.expires_in = expires_in

    def write_file(self, name: str, data: bytes, content_type: str) -> None:
        self.objects.put(self.prefix + name, data, content_type)

    def url(self, name: str) -> str | None:
        url: str = self.objects.presign_get(self.prefix + name, self.expires_in)
        return url


class S3ExportSource:
    """An export's files read back from an S3 prefix (the operator's import from the same or another bucket)."""

    def __init__(self, objects: Any, prefix: str) -> None:
        self.objects = objects
        self.prefix = prefix

    def read(self, name: str) -> bytes:
        data: bytes = self.objects.get(self.prefix + name)[0]
        return data
