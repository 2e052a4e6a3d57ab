"""Fixtures of the Lambda-runtime tier: the runtime dependencies, the local resources, and function processes."""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from lambda_runtime import (
    BUCKET,
    EVENT_BUS,
    TABLE,
    LambdaFunction,
    LambdaProcess,
    Resolver,
    Start,
    lambda_environment,
    runtime_deps,
    template_functions,
)

from offprompt_local.resources import create_bucket, create_table


@pytest.fixture(scope="session")
def runtime_deps_dir() -> Path:
    return runtime_deps()


@pytest.fixture(scope="session")
def functions() -> dict[str, LambdaFunction]:
    return template_functions()


@pytest.fixture
def local_aws(moto_server: str) -> dict[str, Any]:
    """The template's table and bucket on a fresh moto server; clients for the test's own checks."""
    dynamodb = boto3.client("dynamodb", endpoint_url=moto_server)
    s3 = boto3.client("s3", endpoint_url=moto_server)
    create_table(dynamodb, TABLE)
    create_bucket(s3, BUCKET)
    # the token signing secret the template generates (TokenSecret, ADR 0055)
    secrets = boto3.client("secretsmanager", endpoint_url=moto_server)
    token_secret = secrets.create_secret(Name="offprompt-runtime-token", SecretString="s" * 64)["ARN"]
    return {
        "endpoint": moto_server,
        "dynamodb": dynamodb,
        "s3": s3,
        "table": TABLE,
        "bucket": BUCKET,
        "token_secret": token_secret,
    }


def _start_factory(
    functions: dict[str, LambdaFunction], deps: Path, local_aws: dict[str, Any], opensearch: str | None
) -> Iterator[Start]:
    parameters = {"AuthMode": "iam", "OpenSearchMode": "existing"}
    if opensearch:
        parameters |= {
            "OpenSearchEndpoint": opensearch,
            "OpenSearchDomainArn": "arn:aws:es:us-east-1:123456789012:domain/offprompt-runtime",
            "OpenSearchIndex": f"offprompt-runtime-{uuid.uuid4().hex[:12]}",
        }
    resolve = Resolver(
        parameters,
        physical={
            "MemoryTable": local_aws["table"],
            "BlobBucket": local_aws["bucket"],
            "TokenSecret": local_aws["token_secret"],
            # the extraction runner's delayed checks (ADR 0051): a queue URL on the moto server
            "ExtractionQueue": f"{local_aws['endpoint']}/123456789012/offprompt-runtime-extraction",
        },
        attributes={"MemoryEventBus.Name": EVENT_BUS},
    )
    started: list[LambdaProcess] = []

    def start(
        logical_id: str,
        extra_env: dict[str, str] | None = None,
        handler: str | None = None,
        extra_sys_path: tuple[str, ...] = (),
    ) -> LambdaProcess:
        function = functions[logical_id]
        if handler is not None:
            function = dataclasses.replace(function, handler=handler)
        env = lambda_environment(function, resolve, endpoint_url=local_aws["endpoint"], extra=extra_env)
        process = LambdaProcess(function, env, deps, extra_sys_path)
        started.append(process)
        return process

    try:
        yield start
    finally:
        for process in started:
            process.close()


@pytest.fixture
def start_function(
    functions: dict[str, LambdaFunction], runtime_deps_dir: Path, local_aws: dict[str, Any]
) -> Iterator[Start]:
    """`start(logical_id)`: the function in a fresh interpreter, over moto (no OpenSearch)."""
    yield from _start_factory(functions, runtime_deps_dir, local_aws, None)


@pytest.fixture
def start_text_function(
    functions: dict[str, LambdaFunction], runtime_deps_dir: Path, local_aws: dict[str, Any], opensearch_url: str
) -> Iterator[Start]:
    """`start(logical_id)`: the function in a fresh interpreter, over moto and the local OpenSearch node."""
    yield from _start_factory(functions, runtime_deps_dir, local_aws, opensearch_url)


@pytest.fixture
def freezable_opensearch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """(url, pid) of a local OpenSearch node this test process started, so the test may SIGSTOP it.

    The session's node when it is ours; with `OPENSEARCH_URL` set (someone else's node) a dedicated one.
    """
    from offprompt_local import opensearch as local_opensearch

    if not os.environ.get(local_opensearch.URL_ENV):
        url = request.getfixturevalue("opensearch_url")
        for node in list(local_opensearch._running):
            if node.url == url and node.pid is not None and node.is_running():
                yield url, node.pid
                return
    monkeypatch.delenv(local_opensearch.URL_ENV, raising=False)
    node = local_opensearch.LocalOpenSearch()
    try:
        url = node.start()
        assert node.pid is not None
        yield url, node.pid
    finally:
        node.stop()


@pytest.fixture
def start_on_freezable_opensearch(
    functions: dict[str, LambdaFunction],
    runtime_deps_dir: Path,
    local_aws: dict[str, Any],
    freezable_opensearch: tuple[str, int],
) -> Iterator[Start]:
    """`start(logical_id)` over moto and `freezable_opensearch`."""
    yield from _start_factory(functions, runtime_deps_dir, local_aws, freezable_opensearch[0])
