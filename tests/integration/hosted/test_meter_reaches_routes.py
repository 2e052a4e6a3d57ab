"""The request's meter reaches its route however many resolvers were built from the function's routes.

CI found it (stop 26): every metering test failed in the full suite and passed alone. A Powertools `Router` keeps
its per-request context on the last resolver that included it; the OpenAPI generator (`make openapi`, the dev
server's /openapi.json, tests/infrastructure) builds one from each function's routes, so after it ran the
handler's own resolver put the meter where its routes no longer looked: writes were stored and never charged.
"""

from __future__ import annotations

from hosted_support import Deployment, call, new_key, text_run

from offprompt_local import docs


def test_a_run_is_metered_after_the_openapi_document_was_generated(stack: Deployment) -> None:
    token = new_key("acme", stored_bytes=1_000_000)
    for n in range(2):  # the handler's resolver is built on its first request; the document is made after it
        status, body, _ = call(
            "add_run",
            "add_run_http.json",
            token,
            path="/threads/t/runs",
            method="POST",
            body=text_run(f"r-{n}", "q" * 40),
            thread_id="t",
        )
        assert status == 201, body
        if n == 0:
            docs.generate()  # what `make openapi` and GET /openapi.json on the dev server do, in this process
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    assert usage["stored_bytes"] > 0, usage  # the run was charged to the tenant
    assert usage["totals"]["runs_added"] == 2, usage
    # the plan's limits come with the use (the console shows one against the other; docs/adr/0038)
    assert usage["plan"]["stored_bytes"] == 1_000_000 and "runs_per_day" in usage["plan"], usage
