"""A tenant's S3 objects by key prefix (the storage layout's roots `t/`, `taskmem/`, `uploads/`, `downloads/`,
`exports/` + the tenant's digest: `layout.S3_ROOTS`), for export, import and erase (docs/adr/0024)."""

from __future__ import annotations

from collections.abc import Iterator

from offprompt.errors import DependencyUnavailable

from . import layout
from .aws_errors import aws_call
from .s3_bucket import S3Bucket


class S3TenantObjects(S3Bucket):
    """Objects under a tenant's key prefixes: list, read, write, delete."""

    def prefixes(self, tenant: str, *, include_transient: bool) -> tuple[str, ...]:
        """The tenant's prefixes: its stored data, and with `include_transient` its uploads, downloads, exports."""
        return layout.s3_prefixes(tenant, include_transient=include_transient)

    def export_prefix(self, tenant: str, export_id: str) -> str:
        return layout.export_prefix(tenant, export_id)

    def list(self, prefix: str) -> Iterator[tuple[str, int]]:
        """(key, size) of every object under `prefix`, in key order."""
        with aws_call("S3 list"):
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                for obj in page.get("Contents", []):
                    yield obj["Key"], int(obj["Size"])

    def get(self, key: str) -> tuple[bytes, str]:
        """The object's bytes and content type."""
        with aws_call("S3 get"):
            out = self.client.get_object(Bucket=self.bucket, Key=key)
            return out["Body"].read(), str(out.get("ContentType") or "application/octet-stream")

    def put(self, key: str, data: bytes, content_type: str) -> None:
        with aws_call("S3 put"):
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=data, ContentType=content_type, ServerSideEncryption="AES256"
            )

    def delete_prefix(self, prefix: str) -> int:
        deleted = 0
        with aws_call("S3 delete"):
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                keys = [{"Key": obj["Key"]} for obj in page.get("Contents", [])]
                if keys:
                    out = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True})
                    if out.get("Errors"):
                        raise DependencyUnavailable("S3 could not delete some objects; run the operation again")
                    deleted += len(keys)
        return deleted

    def presign_get(self, key: str, expires_in: int) -> str:
        url: str = self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=expires_in
        )
        return url
