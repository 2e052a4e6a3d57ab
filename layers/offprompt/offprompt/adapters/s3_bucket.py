"""What every S3 adapter on `bucket` shares: the bucket's name and its client, built on first use (no work at import
or construction; docs/adr/0058). Its methods run before an SDK call, never around one, so an adapter built on it still
makes its own calls (the call-depth rule, tests/infrastructure/test_call_depth.py)."""

from __future__ import annotations

from typing import Any

from .clients import aws_client


class S3Bucket:
    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("s3")
        return self._client
