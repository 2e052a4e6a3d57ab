"""Serverless task memory's text records in S3 (docs/adr/0030-opensearch-serverless.md): each stored text artifact's
exact JSON, its chunk count and its documents' server-given ids, so a load is immediate and exact whatever the
collection's search delay, a retried store writes nothing twice, and a delete reaches documents search does not see
yet. Used by `opensearch_text.OpenSearchTextStore` (mode "serverless") and the tenant erase/export."""

from __future__ import annotations

import json
from collections.abc import Iterator

from offprompt.errors import DependencyUnavailable
from offprompt.ports import TextScope

from .aws_errors import aws_call, aws_call_allowing
from .layout import text_records_prefix, text_records_tenant_prefix
from .s3_bucket import S3Bucket

#: A record's header (its ids) is read with a ranged GET of this many bytes first.
RECORD_HEADER_PROBE = 1 << 20


class TextRecord:
    """Serverless: one stored text artifact: its exact JSON, its chunk count and its documents' server ids."""

    __slots__ = ("artifact_json", "chunks", "ids")

    def __init__(self, artifact_json: str, chunks: int, ids: list[str]) -> None:
        self.artifact_json = artifact_json
        self.chunks = chunks
        self.ids = ids


class S3TextRecords(S3Bucket):
    """Serverless: each text artifact's `TextRecord` as one S3 object: a JSON header line `{"chunks", "ids"}`, then
    the artifact's JSON. Keys sit under the tenant's `taskmem/{digest(tenant)}/` prefix, so a tenant's export and
    erase (adapters/layout.py, `S3_ROOTS`) include them, but not under the namespace's blob prefix, so that a
    namespace delete's blob step leaves them for the text step, which reads their ids first."""

    @staticmethod
    def tenant_prefix(tenant: str) -> str:
        return text_records_tenant_prefix(tenant)

    @staticmethod
    def scope_prefix(scope: TextScope) -> str:
        return text_records_prefix(scope.tenant, scope.memory, scope.namespace)

    def put(self, scope: TextScope, position: int, record: TextRecord) -> None:
        header = json.dumps({"chunks": record.chunks, "ids": record.ids}, separators=(",", ":"))
        body = (header + "\n" + record.artifact_json).encode("utf-8")
        key = f"{self.scope_prefix(scope)}{position:012d}"
        with aws_call("S3 put"):
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=body, ContentType="application/json", ServerSideEncryption="AES256"
            )

    def get(self, scope: TextScope, position: int) -> TextRecord | None:
        key = f"{self.scope_prefix(scope)}{position:012d}"
        data = self._read(key)
        if data is None:
            return None
        header, _, artifact_json = data.decode("utf-8").partition("\n")
        chunks, ids = self._header(header)
        return TextRecord(artifact_json, chunks, ids)

    def ids(self, key: str) -> list[str]:
        """The document ids a record names, read from its header (a ranged GET, unless the header is longer)."""
        data = self._read(key, probe=True)
        if data is None:
            return []
        if b"\n" not in data:
            data = self._read(key) or b""
        return self._header(data.split(b"\n", 1)[0].decode("utf-8"))[1]

    def keys(self, prefix: str) -> Iterator[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix)
        with aws_call("S3 list"):
            for page in pages:
                for obj in page.get("Contents", []):
                    yield str(obj["Key"])

    def delete_prefix(self, prefix: str) -> int:
        deleted = 0
        keys = list(self.keys(prefix))
        for first in range(0, len(keys), 1000):
            objects = [{"Key": k} for k in keys[first : first + 1000]]
            with aws_call("S3 delete"):
                self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": objects, "Quiet": True})
            deleted += len(objects)
        return deleted

    def _read(self, key: str, *, probe: bool = False) -> bytes | None:
        options = {"Range": f"bytes=0-{RECORD_HEADER_PROBE - 1}"} if probe else {}
        with aws_call_allowing("S3 get", "NoSuchKey", "404") as call:
            body: bytes = self.client.get_object(Bucket=self.bucket, Key=key, **options)["Body"].read()
        if call.refused:
            return None
        return body

    @staticmethod
    def _header(line: str) -> tuple[int, list[str]]:
        try:
            header = json.loads(line)
            chunks, ids = int(header["chunks"]), [str(i) for i in header["ids"]]
        except (KeyError, TypeError, ValueError):
            raise DependencyUnavailable("a text record in S3 is unreadable") from None
        return chunks, ids
