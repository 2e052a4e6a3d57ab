"""Identifiers that can be written can be addressed (issue 11, ADR 0014), through the local stack over HTTP.

The allowed alphabet is every assigned, non-control, non-surrogate code point that is no format character but the
joiners ZWNJ/ZWJ (`offprompt.identifiers`), minus "/" and the whole values "." and "..", which no URL path segment
can carry: written in a body they are refused with a 400 that names the character, and a `%2F` in a URL path
matches no route (404 route_not_found). Hypothesis draws thread ids, memory names and namespaces from the whole
allowed alphabet; each is written, then read back by every route that addresses it, percent-encoded in the path.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_local_stack import RunningStack, raises, stack  # noqa: F401  (the same stack subprocess, one per module)

from offprompt.artifacts import BlobArtifact, TextArtifact
from offprompt_client import OffpromptClient

# Format characters (Cf) but the joiners are refused (bidi controls spoof labels: issue 30).
ALLOWED = st.characters(exclude_categories=("Cc", "Cs", "Cn", "Cf"))
# Bias towards what broke addressing before (#, ?, quotes, backslash, backtick, %, +, spaces, NBSP, emoji, €).
TRICKY = st.sampled_from(list("#?\"'\\`%+&=;: \u00a0\u2019\u20ac\U0001f600\u200c\u200d\u2028"))
IDENTIFIERS = (
    st.text(st.one_of(ALLOWED, TRICKY), min_size=1, max_size=24)
    .filter(lambda s: "/" not in s and s not in (".", ".."))
    .map(lambda s: s[:24])
)
EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def client(stack: RunningStack) -> OffpromptClient:  # noqa: F811
    return OffpromptClient(stack.url, tenant=f"alphabet-{uuid.uuid4().hex[:8]}", timeout=120)


@EXAMPLES
@given(thread_id=IDENTIFIERS)
def test_any_allowed_thread_id_round_trips(client: OffpromptClient, thread_id: str) -> None:
    assert client.configure_thread(thread_id, max_runs=5)["thread_id"] == thread_id
    assert client.get_thread(thread_id)["thread_id"] == thread_id
    client.add_run(thread_id, input="q", output="a")
    assert [r["run"]["input"]["value"] for r in client.all_runs(thread_id)] == ["q"]
    assert len(client.prompt_stack(thread_id, input="next").messages) == 3
    client.delete_thread(thread_id)
    with raises(404, "not_found"):
        client.get_thread(thread_id)


@EXAMPLES
@given(memory=IDENTIFIERS, namespace=IDENTIFIERS)
def test_any_allowed_memory_and_namespace_round_trip(client: OffpromptClient, memory: str, namespace: str) -> None:
    client.process_output(memory, "Tool", "act", BlobArtifact(b"\x00\x01", name=namespace))
    assert client.get_namespace(memory, namespace)["namespace"] == namespace
    assert [a.value for a in client.load_artifacts(memory, namespace)] == [b"\x00\x01"]
    assert namespace in [n["namespace"] for n in client.iter_namespaces(memory)]
    client.delete_namespace(memory, namespace)
    with raises(404, "not_found"):
        client.get_namespace(memory, namespace)


@pytest.mark.parametrize("bad", ["a/b", "/", ".", "..", "tab\there", "nul\x00"])
def test_identifiers_no_path_segment_can_carry_are_refused_on_write_with_a_400(
    client: OffpromptClient, bad: str
) -> None:
    with raises(400, "invalid_input"):
        client.process_output("Memory", "Tool", "act", TextArtifact("x", name=bad))
    if "/" in bad:
        # "/" cannot be in a path segment at all: in a body (the namespace above) it is a 400; in a URL path the
        # client's %2F is decoded before routing (as API Gateway does), so no route matches: a 404 (ADR 0014).
        for call in (lambda: client.get_thread(bad), lambda: client.configure_thread(bad, max_runs=1)):
            with raises(404, "route_not_found"):
                call()
        with raises(404, "route_not_found"):
            client.load_artifacts("Memory", bad)
        return
    if bad in (".", ".."):
        return  # HTTP clients resolve these path segments away: only a body or a direct invocation carries them
    with raises(400, "invalid_input") as caught:
        client.configure_thread(bad, max_runs=1)
    assert "thread_id" in caught.value.message
