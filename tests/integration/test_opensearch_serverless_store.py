"""The text store's Serverless mode beyond the shared contract (tests/integration/test_text_store_contract.py):
what a retry, a crash between indexing and recording, and a failed record write leave behind, through the
Serverless-faithful proxy on the real node, with the S3 text records in moto (docs/adr/0030-opensearch-serverless.md).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.layout import s3_prefixes
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_text import OpenSearchTextStore, S3TextRecords
from offprompt.artifacts import TextArtifact
from offprompt.errors import DependencyUnavailable
from offprompt.ports import TextScope
from offprompt_local.pytest_plugin import serverless_refresh

pytestmark = pytest.mark.opensearch
BUCKET = "serverless-texts"


@pytest.fixture
def store(moto_aws: None, aoss_proxy: Any, opensearch_client: Any) -> Iterator[OpenSearchTextStore]:
    import boto3

    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket=BUCKET)
    index = f"offprompt-aoss-{uuid.uuid4().hex}"
    refused = len(aoss_proxy.refusals)
    client = build_opensearch_client(aoss_proxy.url)
    yield OpenSearchTextStore(
        client,
        index,
        BpeOpenAiTokenizer(),
        chunk_tokens=20,
        mode="serverless",
        records=S3TextRecords(BUCKET, client=s3),
    )
    opensearch_client.indices.delete(index=index, ignore_unavailable=True)
    assert aoss_proxy.refusals[refused:] == []


@pytest.fixture
def settle(store: OpenSearchTextStore, opensearch_client: Any) -> Callable[[], None]:
    return serverless_refresh(opensearch_client, store.index)


def _visible(store: OpenSearchTextStore, scope: TextScope) -> int:
    body = {"query": {"bool": {"filter": [{"term": {"namespace": scope.namespace}}]}}}
    return int(store.client.count(index=store.index, body=body)["count"])


def test_a_retried_store_writes_nothing_twice(store: OpenSearchTextStore, settle: Callable[[], None]) -> None:
    scope = TextScope("t", "m", f"ns-{uuid.uuid4().hex[:6]}")
    artifacts = [TextArtifact("alpha beta " * 100), TextArtifact("gamma")]
    counts = store.store(scope, 0, artifacts)
    assert store.store(scope, 0, artifacts) == counts  # the records say both are there: no bulk request at all
    settle()
    assert _visible(store, scope) == sum(counts)


def test_a_store_that_died_before_its_records_leaves_copies_search_hides_and_delete_sweeps(
    store: OpenSearchTextStore, settle: Callable[[], None]
) -> None:
    scope = TextScope("t", "m", f"ns-{uuid.uuid4().hex[:6]}")
    artifact = TextArtifact("the orphaned needle")
    store.ensure_index()
    store._index(scope, [(0, artifact)], ids={}, write_id="crashed")  # indexed, then the process died
    assert store.store(scope, 0, [artifact]) == [1]  # the retry: no record, so it indexes again
    settle()
    assert _visible(store, scope) == 2
    hits = store.search(scope, "needle", 10, "bm25")
    assert [(h.position, h.chunk) for h in hits] == [(0, 0)]  # one hit per position and chunk
    assert store.delete(scope) == 2  # the recorded copy by id, the orphan by the search sweep
    settle()
    assert _visible(store, scope) == 0


def test_a_failed_record_write_removes_what_the_store_indexed(
    store: OpenSearchTextStore, settle: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = TextScope("t", "m", f"ns-{uuid.uuid4().hex[:6]}")
    assert store.records is not None

    def fail(*args: Any, **kwargs: Any) -> None:
        raise DependencyUnavailable("S3 put failed: SlowDown")

    monkeypatch.setattr(store.records, "put", fail)
    with pytest.raises(DependencyUnavailable, match="SlowDown"):
        store.store(scope, 0, [TextArtifact("never recorded " * 50)])
    settle()
    assert _visible(store, scope) == 0
    with pytest.raises(DependencyUnavailable, match="missing"):
        store.load(scope, [(0, 1)])


def test_load_checks_the_layout_against_the_record(store: OpenSearchTextStore) -> None:
    scope = TextScope("t", "m", f"ns-{uuid.uuid4().hex[:6]}")
    (count,) = store.store(scope, 3, [TextArtifact("one two three " * 40)])
    assert store.load(scope, [(3, count)])[0].value == "one two three " * 40
    with pytest.raises(DependencyUnavailable, match="chunks"):
        store.load(scope, [(3, count + 1)])


def test_records_live_under_the_tenants_exported_and_erased_prefix() -> None:
    scope = TextScope("tenant-x", "m", "n")
    prefixes = s3_prefixes(scope.tenant, include_transient=False)
    assert any(S3TextRecords.scope_prefix(scope).startswith(p) for p in prefixes)
    assert any(S3TextRecords.tenant_prefix(scope.tenant).startswith(p) for p in prefixes)
