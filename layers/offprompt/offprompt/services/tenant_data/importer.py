"""Import a tenant export (`export.py`'s layout) into this deployment: objects, then documents, then items.

Objects and text documents go first and the DynamoDB items last: readers only follow committed records, so a
load never sees a batch whose data is not there yet, even halfway through an import. Every write is an
overwrite under the exported key or id, so an interrupted import is finished by running it again (`merge`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from offprompt.errors import Conflict, DependencyUnavailable, InvalidInput
from offprompt.services.tenant_data.backfill import index_tenant
from offprompt.services.tenant_data.export import FORMAT, MANIFEST, VERSION
from offprompt.services.tenant_data.ports import ExportSource, TenantStores

ITEM_BATCH = 500


#: The storage layout's kind of an audit entry (adapters/layout.py's "audit" family).
AUDIT_KIND = "audit_entry"


def binary_values(value: Any) -> Any:
    """An exported item's attribute values with `B` / `BS` back as bytes (the export wrote them as base64)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for name, inner in value.items():
            if name == "B" and isinstance(inner, str) and len(value) == 1:
                out[name] = base64.b64decode(inner)
            elif name == "BS" and isinstance(inner, list) and len(value) == 1:
                out[name] = [base64.b64decode(v) for v in inner]
            else:
                out[name] = binary_values(inner)
        return out
    if isinstance(value, list):
        return [binary_values(v) for v in value]
    return value


def _jsonl(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.splitlines() if line.strip()]


def read_manifest(source: ExportSource) -> dict[str, Any]:
    try:
        manifest: dict[str, Any] = json.loads(source.read(MANIFEST))
    except ValueError:
        raise InvalidInput("the export's manifest is not JSON") from None
    if manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise InvalidInput(f"not a {FORMAT} version {VERSION} export")
    return manifest


def import_tenant(tenant: str, stores: TenantStores, source: ExportSource, *, merge: bool = False) -> dict[str, int]:
    manifest = read_manifest(source)
    if manifest.get("tenant") != tenant:
        # Keys, object keys and document ids are derived from the tenant: an export loads only as its own tenant.
        raise InvalidInput("the export belongs to another tenant")
    digests = {f["name"]: f["sha256"] for f in manifest.get("files", [])}

    def read(name: str) -> bytes:
        data = source.read(name)
        if name not in digests or hashlib.sha256(data).hexdigest() != digests[name]:
            raise InvalidInput(f"export file {name} is missing from the manifest or does not match its digest")
        return data

    # Everything is checked before anything is written: a damaged export writes nothing.
    objects = _jsonl(read("s3.jsonl"))
    docs = [(d["id"], d["source"]) for d in _jsonl(read("opensearch.jsonl"))]
    lines = _jsonl(read("dynamodb.jsonl"))
    prefixes = stores.objects.prefixes(tenant, include_transient=False)
    for entry in objects:
        if not str(entry["key"]).startswith(prefixes):
            raise InvalidInput("the export names an object outside the tenant's prefixes")
        read(entry["file"])
    if any(source.get("tenant") != tenant for _id, source in docs):
        raise InvalidInput("the export holds a document of another tenant")
    for line in lines:
        kind = stores.items.kind(line["item"], tenant)
        if kind not in stores.items.exported_kinds or kind != line.get("kind"):
            raise InvalidInput("the export holds an item outside the tenant's partitions")

    # "Is the target empty" is only known of an indexed tenant (docs/adr/0043).
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    if not index_tenant(tenant, stores, now).complete:
        raise DependencyUnavailable("the tenant's data is still being indexed; run the import again")
    # (the audit log is not data: an erased tenant keeps the entry saying it was erased, ADR 0056)
    found = (
        i
        for i in stores.items.items(tenant, keys_only=True)
        if stores.items.kind(i, tenant) not in (stores.items.marker_kind, AUDIT_KIND)
    )
    if not merge and next(found, None):
        raise Conflict("the tenant already has data in this deployment (import with merge to overwrite)")

    counts: Counter[str] = Counter()
    for entry in objects:
        stores.objects.put(entry["key"], read(entry["file"]), entry["content_type"])
        counts["s3"] += 1
    if docs:
        stores.documents.put(docs)
    counts["opensearch"] = len(docs)

    batch: list[dict[str, Any]] = []
    for line in lines:
        # An export of data older than the tenant index lacks its attribute: partition roots get it here.
        item = stores.items.with_index_attribute(
            stores.items.without_gauge_attributes(binary_values(line["item"])), tenant
        )
        batch.append(item)
        kind = line["kind"]
        counts[f"dynamodb.{kind}"] += 1
        counts["dynamodb"] += 1
        if len(batch) >= ITEM_BATCH:
            stores.items.put(batch)
            batch = []
    if batch:
        stores.items.put(batch)
    return dict(sorted(counts.items()))
