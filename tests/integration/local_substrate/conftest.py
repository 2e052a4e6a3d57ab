"""Servers for the substrate tests: the local substrate, and plain moto 5.2.5 as the counter-example.

`server` is parametrized: `substrate` (AtomicMotoServer, what `make dev` and the `moto_server` fixture run) and
`plain_moto` (moto's own ThreadedMotoServer), which is `xfail(strict=True)`: every test body here is shown to
fail on plain moto, and a plain-moto pass would fail the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from offprompt_local.resources import create_bucket, create_table

TABLE = "substrate-test"
BUCKET = "substrate-test"
PLAIN = pytest.param("plain_moto", marks=pytest.mark.xfail(strict=True, reason="plain moto 5.2.5 lacks this"))


@dataclass
class Server:
    kind: str
    url: str
    handle: Any

    def dynamodb(self) -> Any:
        return boto3.client("dynamodb", endpoint_url=self.url, region_name="us-east-1")

    def s3(self) -> Any:
        return boto3.client("s3", endpoint_url=self.url, region_name="us-east-1")

    def streams(self) -> Any:
        return boto3.client("dynamodbstreams", endpoint_url=self.url, region_name="us-east-1")

    def stop(self) -> None:
        self.handle.stop()


def start_server(kind: str, data_dir: Path | None = None) -> Server:
    if kind == "substrate":
        from offprompt_local.substrate import AtomicMotoServer

        server: Any = AtomicMotoServer("127.0.0.1", 0, data_dir=data_dir)
    else:
        from moto.server import ThreadedMotoServer

        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    return Server(kind, f"http://{host}:{port}", server)


def query_pages(client: Any, params: dict[str, Any], most: int = 200) -> list[dict[str, Any]]:
    """Every page of one Query (LastEvaluatedKey followed), each as Items, Count, ScannedCount, LastEvaluatedKey."""
    pages: list[dict[str, Any]] = []
    start = None
    while True:
        out = client.query(**params, **({"ExclusiveStartKey": start} if start else {}))
        pages.append({k: out.get(k) for k in ("Items", "Count", "ScannedCount", "LastEvaluatedKey")})
        start = out.get("LastEvaluatedKey")
        if not start or len(pages) > most:
            return pages


def reset_moto() -> None:
    from moto.moto_api import _internal

    _internal.moto_api_backend.reset()


@pytest.fixture(params=["substrate", PLAIN])
def server_kind(request: pytest.FixtureRequest, aws_credentials: None) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def server(server_kind: str) -> Iterator[Server]:
    """An in-memory server of the parametrized kind with the template's table (stream on) and bucket."""
    reset_moto()
    running = start_server(server_kind)
    try:
        create_table(running.dynamodb(), TABLE)
        create_bucket(running.s3(), BUCKET)
        yield running
    finally:
        running.stop()
        reset_moto()


@pytest.fixture
def server_factory(server_kind: str) -> Iterator[Callable[[Path | None], Server]]:
    """Start (and at the end stop) servers of the parametrized kind, e.g. twice on one data directory."""
    reset_moto()
    started: list[Server] = []

    def factory(data_dir: Path | None) -> Server:
        running = start_server(server_kind, data_dir)
        started.append(running)
        return running

    try:
        yield factory
    finally:
        for running in started:
            running.stop()  # idempotent: a test may have stopped it already
        reset_moto()
