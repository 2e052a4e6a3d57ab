"""Lazily built, per-process cached AWS clients (one botocore Config). Nothing is built at import time.

boto3 honours AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE>, which is how the local stack points the same code
at moto's server.
"""

from __future__ import annotations

import functools
from typing import Any

import boto3
from botocore.config import Config

_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 4},
    connect_timeout=5,
    read_timeout=30,
    # Path-style keeps presigned URLs working against moto's server and in every region.
    s3={"addressing_style": "path"},
)


@functools.cache
def aws_client(service: str) -> Any:
    """The process's boto3 client for `service` (dynamodb, s3, bedrock-runtime, lambda)."""
    # Presigned S3 URLs must be SigV4 (SigV2 is refused for new buckets and KMS-encrypted objects).
    config = _CONFIG.merge(Config(signature_version="s3v4")) if service == "s3" else _CONFIG
    return boto3.session.Session().client(service, config=config)


def reset_clients() -> None:
    """Forget cached clients (tests start moto before building new ones)."""
    aws_client.cache_clear()
