"""Where task memory keeps things in S3: one prefix per namespace (blobs, batch manifests), one per memory's uploads."""

from __future__ import annotations

from offprompt.identifiers import digest


def namespace_prefix(tenant: str, memory: str, namespace: str) -> str:
    return f"taskmem/{digest(tenant)}/{digest(tenant, memory, namespace)}/"


def blob_key(tenant: str, memory: str, namespace: str, position: int) -> str:
    return f"{namespace_prefix(tenant, memory, namespace)}{position:012d}"


def manifest_key(tenant: str, memory: str, namespace: str, start: int) -> str:
    return f"{namespace_prefix(tenant, memory, namespace)}manifest/{start:012d}"


def upload_prefix(tenant: str, memory: str) -> str:
    # Under the tenant's digest first, so an erase finds a tenant's pending uploads by prefix (ADR 0024).
    return f"uploads/{digest(tenant)}/{digest(tenant, memory)}/"


def download_key(tenant: str, name: str) -> str:
    return f"downloads/{digest(tenant)}/{name}.json"
