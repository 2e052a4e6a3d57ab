"""BlobStore on S3: server-side encrypted objects under keys the services derive from digests."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable, NotFound

from .aws_errors import error_code, failure_reason
from .clients import aws_client


class S3BlobStore:
    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("s3")
        return self._client

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None:
        try:
            self.client.put_object(
                Bucket=self.bucket,
                Key=key,
                Body=data,
                ContentType=content_type,
                ServerSideEncryption="AES256",
            )
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 put failed: {failure_reason(exc)}") from exc

    def get(self, key: str) -> bytes:
        try:
            body: bytes = self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
            return body
        except ClientError as exc:
            if error_code(exc) in ("NoSuchKey", "404"):
                raise NotFound("the stored object does not exist") from exc  # no internal key in errors
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc

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
