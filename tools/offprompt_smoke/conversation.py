"""Conversation memory checks: runs, idempotent retries, conflicts, cursors, budgeted prompt stacks, thread admin,
max_runs pruning, delete. Each check uses threads of its own."""

from __future__ import annotations

import time
from typing import Any

from .runner import Smoke, expect, quoted, refused


def text(value: str) -> dict[str, Any]:
    return {"type": "TextArtifact", "value": value}


def add_runs(smoke: Smoke, thread: str, count: int, *, words: int = 0, first: int = 1) -> list[dict[str, Any]]:
    """`count` runs `run-<n>` (question n / answer n, padded with `words` words); returns the answers."""
    added = []
    for n in range(first, first + count):
        padding = " lorem" * words
        answer = smoke.api.add_run(thread, input=f"question {n}{padding}", output=f"answer {n}{padding}", id=f"run-{n}")
        added.append(answer)
    return added


def run_ids(smoke: Smoke, thread: str) -> list[str]:
    return [r["run"]["id"] for r in smoke.api.all_runs(thread)]


def check_add_runs(smoke: Smoke) -> str:
    thread = smoke.thread("add-runs")
    added = add_runs(smoke, thread, 5)
    expect([a["seq"] for a in added] == [1, 2, 3, 4, 5], f"seqs {[a['seq'] for a in added]}, wanted 1-5")
    expect([a["run"]["id"] for a in added] == [f"run-{n}" for n in range(1, 6)], "the answers name other run ids")
    first = added[0]["run"]
    expect(first["input"]["value"] == "question 1" and first["output"]["value"] == "answer 1", f"stored {first}")
    expect(first["input"].get("id"), "the server gave the input artifact no id")
    listed = smoke.api.all_runs(thread)
    expect([r["run"] for r in listed] == [a["run"] for a in added], "the runs listed back differ from the answers")
    return "5 runs appended as seq 1-5 and listed back identical"


def check_idempotent_retry(smoke: Smoke) -> str:
    thread = smoke.thread("retry")
    path = f"/threads/{quoted(thread)}/runs"
    body = {"id": "run-1", "input": text("What is the capital of France?"), "output": text("Paris.")}
    first = smoke.api.request("POST", path, json_body=body)
    again = smoke.api.request("POST", path, json_body=body)
    expect(first.status == 201 and again.status == 201, f"statuses {first.status}, {again.status}")
    expect(again.json() == first.json(), f"the retry answered {again.json()}, the first {first.json()}")
    expect(run_ids(smoke, thread) == ["run-1"], f"stored {run_ids(smoke, thread)} after the retry")
    generated = first.json()["run"]["input"]["id"]
    return f"the retry (same id, same body) replayed seq 1 and the server's artifact id {generated[:8]}…; 1 run stored"


def check_conflict(smoke: Smoke) -> str:
    thread = smoke.thread("conflict")
    smoke.api.add_run(thread, input="question", output="answer", id="run-1")
    error = refused(lambda: smoke.api.add_run(thread, input="other", output="answer", id="run-1"), 409, "conflict")
    runs = smoke.api.all_runs(thread)
    expect([r["run"]["input"]["value"] for r in runs] == ["question"], f"after the 409 the thread holds {runs}")
    return f"same id, another body → 409 conflict ({error.message}); the first run unchanged"


def check_list_runs_cursor(smoke: Smoke) -> str:
    thread = smoke.thread("cursor")
    add_runs(smoke, thread, 5)
    pages: list[list[int]] = []
    cursor = None
    while True:
        page = smoke.api.list_runs(thread, limit=2, cursor=cursor)
        pages.append([r["seq"] for r in page["runs"]])
        cursor = page.get("next_cursor")
        expect(len(pages) <= 5, f"cursors do not end: pages {pages}")
        if not cursor:
            break
    expect(pages == [[1, 2], [3, 4], [5]], f"pages of 2 (seq): {pages}, wanted [[1, 2], [3, 4], [5]]")
    newest = [r["seq"] for r in smoke.api.list_runs(thread, limit=5, order="desc")["runs"]]
    expect(newest == [5, 4, 3, 2, 1], f"order=desc gave {newest}")
    return "limit=2: pages [1, 2] [3, 4] [5] by cursor, the last without next_cursor; order=desc [5..1]"


def check_thread_listing_and_console(smoke: Smoke) -> str:
    """GET /threads lists the tenant's threads, the most recently written first (docs/adr/0054), or by id; by id
    prefix; the console's page and script are served with their Content-Security-Policy (docs/adr/0038). The ids'
    alphabetical order is the opposite of their activity order, so the check tells the two apart."""
    older, newer = smoke.thread("listed-1"), smoke.thread("listed-2")
    for thread in (older, newer):
        smoke.api.configure_thread(thread, max_runs=5)
        time.sleep(0.002)  # activity is kept to the millisecond
    prefix = smoke.name("listed-")
    listed = [t["thread_id"] for t in smoke.api.iter_threads(prefix=prefix, page_size=1)]
    expect(listed == [newer, older], f"GET /threads?prefix= gave {listed}, wanted [{newer}, {older}] (newest first)")
    by_id = [t["thread_id"] for t in smoke.api.iter_threads(prefix=prefix, page_size=1, order="id")]
    expect(by_id == [older, newer], f"GET /threads?order=id gave {by_id}, wanted [{older}, {newer}]")
    page = smoke.api.request("GET", "/console")
    policy = page.headers.get("content-security-policy", "")
    expect(page.status == 200 and "script-src 'self'" in policy, f"GET /console: {page.status}, CSP {policy!r}")
    script = smoke.api.request("GET", "/console/app.js")
    expect(script.status == 200 and b"textContent" in script.body, f"GET /console/app.js answered {script.status}")
    return "2 threads listed newest first and by id, by prefix, a page at a time; /console and its script with a CSP"


def check_search(smoke: Smoke) -> str:
    """POST /threads/search (docs/adr/0049): a run written a moment ago is found with consistency "search" (the
    header says the wait completed), in a fork too; a deleted thread's run never comes back; a bad request is 422."""
    fork_id = smoke.thread("search-fork")  # cleaned up first: a parent is deleted only once its forks are gone
    thread, other = smoke.thread("search-1"), smoke.thread("search-2")
    smoke.api.add_run(thread, input="Planning a trip to Kyoto in April", output="Cherry blossom season!", id="kyoto")
    smoke.api.add_run(thread, input="Also my cat is called Mochi", output="Nice name", id="cat")
    smoke.api.add_run(other, input="Kyoto temples list please", output="Kinkaku-ji, Ginkaku-ji", id="gone")
    fork = smoke.api.fork_thread(thread, after_run_id="kyoto", new_thread_id=fork_id)
    prefix = smoke.name("search-")
    found = smoke.api.search_threads("kyoto trip", thread_prefix=prefix, consistency="search", limit=10)
    expect(found.get("searchable") is True, f"consistency search gave up: {found.get('searchable')}")
    hits = [(h["thread_id"], h["run_id"]) for h in found["hits"]]
    expect((thread, "kyoto") in hits, f"the run is not found: {hits}")
    expect(all(h["run"]["id"] == h["run_id"] for h in found["hits"]), "a hit's run is not its Run JSON")
    shared = smoke.api.search_threads("kyoto trip", thread_ids=[fork["thread_id"]])
    shared_hits = [(h["thread_id"], h["run_id"]) for h in shared["hits"]]
    expect((fork["thread_id"], "kyoto") in shared_hits, f"the fork does not find its shared run: {shared_hits}")
    smoke.api.delete_thread(other)
    after = smoke.api.search_threads("kyoto temples", thread_prefix=prefix, consistency="search")
    expect(all(h["thread_id"] != other for h in after["hits"]), f"a deleted thread's run answered: {after['hits']}")
    refused(lambda: smoke.api.search_threads("x", limit=0), 422, "schema_invalid")
    return f"found in the thread and its fork ({len(hits)} hits, waited for the index); deleted never answered; 422"


def check_extraction(smoke: Smoke) -> str:
    """Extraction strategies (docs/adr/0051): one stored, read back and listed; a thread's status names it with what
    is pending; a bad type is 422; deleted, it is 404. Its trigger (1,000 runs) never fires: the smoke writes no
    record (a deployed stack's model is never called)."""
    name, thread = smoke.name("facts"), smoke.thread("extraction")
    stored = smoke.api.put_strategy(name, "facts", "smoke/{thread_id}/facts", after_runs=1000)
    expect(stored["name"] == name and stored["trigger"]["after_runs"] == 1000, f"PUT answered {stored}")
    try:
        expect(smoke.api.get_strategy(name)["type"] == "facts", "GET does not read the strategy back")
        listed = [s["name"] for s in smoke.api.list_strategies()["strategies"]]
        expect(name in listed, f"the strategy is not listed: {listed}")
        smoke.api.add_run(thread, input="hello there", output="hi", id="xtr-1")  # no fact for any extractor
        status = smoke.api.thread_extraction(thread)["strategies"].get(name)
        expect(status is not None and status["processed_through_seq"] == 0, f"the thread's status: {status}")
        expect(status["pending_runs"] == 1, f"pending runs: {status['pending_runs']}")
        body = {"type": "nonsense", "namespace": "a", "trigger": {"after_runs": 1}}
        refused(lambda: smoke.api.request("PUT", f"/extraction/strategies/{quoted(name)}", json_body=body), 422)
    finally:
        smoke.api.delete_strategy(name)
    refused(lambda: smoke.api.get_strategy(name), 404, "strategy_not_found")
    return "a strategy stored, read, listed, named in a thread's status (1 pending run), 422 on a bad type, deleted"


def prompt_stack(smoke: Smoke, thread: str, **body: Any) -> tuple[dict[str, Any], int, str]:
    """The prompt-stack answer, its X-Offprompt-Prompt-Tokens and X-Offprompt-Over-Budget headers."""
    response = smoke.api.request("POST", f"/threads/{quoted(thread)}/prompt-stack", json_body=body)
    expect(response.status == 200, f"prompt-stack answered {response.status}")
    tokens = response.headers.get("x-offprompt-prompt-tokens")
    over = response.headers.get("x-offprompt-over-budget")
    expect(tokens is not None and tokens.isdigit(), f"X-Offprompt-Prompt-Tokens is {tokens!r}")
    expect(over in ("true", "false"), f"X-Offprompt-Over-Budget is {over!r}")
    return response.json(), int(str(tokens)), str(over)


def texts(stack: dict[str, Any]) -> list[str]:
    return [m["content"][0]["artifact"]["value"] for m in stack["messages"]]


def check_prompt_stack_budget(smoke: Smoke) -> str:
    thread = smoke.thread("budget")
    add_runs(smoke, thread, 6, words=20)
    request = {"system": "You are terse.", "input": "And now?", "tokenizer": "cl100k_base"}
    full, full_tokens, over = prompt_stack(smoke, thread, **request)
    roles = [m["role"] for m in full["messages"]]
    expect(roles == ["system"] + ["user", "assistant"] * 6 + ["user"], f"roles without a budget: {roles}")
    expect(over == "false" and full_tokens > 0, f"no budget: {full_tokens} tokens, over budget {over}")
    budget = full_tokens // 2
    tight, tight_tokens, over = prompt_stack(smoke, thread, **request, max_tokens=budget)
    kept = (len(tight["messages"]) - 2) // 2
    expect(0 < kept < 6, f"max_tokens={budget} kept {kept} of 6 runs")
    expect(tight_tokens <= budget and over == "false", f"max_tokens={budget}: {tight_tokens} tokens, over {over}")
    expect(texts(tight)[1:-1] == texts(full)[-1 - 2 * kept : -1], "the budget did not keep the newest runs")
    _, tiny_tokens, over = prompt_stack(smoke, thread, **request, max_tokens=1)
    expect(over == "true", f"max_tokens=1 (smaller than system + input): X-Offprompt-Over-Budget {over}")
    return (
        f"no budget: 6 runs, {full_tokens} tokens; max_tokens={budget}: the newest {kept} runs, {tight_tokens} tokens; "
        f"max_tokens=1: X-Offprompt-Over-Budget true ({tiny_tokens} tokens)"
    )


def check_thread_admin(smoke: Smoke) -> str:
    thread = smoke.thread("admin")
    add_runs(smoke, thread, 3)
    info = smoke.api.get_thread(thread)
    expect(info["thread_id"] == thread and info["stored_runs"] == 3, f"GET: {info}")
    expect(info["memory_type"] == "buffer" and info["max_runs"] is None, f"GET of a new thread: {info}")
    configured = smoke.api.configure_thread(thread, max_runs=50, retention_days=30)
    expect(configured["max_runs"] == 50 and configured["retention_days"] == 30, f"PUT answered {configured}")
    again = smoke.api.get_thread(thread)
    expect(again["max_runs"] == 50 and again["retention_days"] == 30, f"GET after the PUT: {again}")
    return "GET: 3 stored runs, buffer; PUT max_runs=50 retention_days=30 → answered and read back"


def check_max_runs_pruning(smoke: Smoke) -> str:
    thread = smoke.thread("max-runs")
    add_runs(smoke, thread, 5)
    smoke.api.configure_thread(thread, max_runs=3)
    after_put = run_ids(smoke, thread)
    expect(after_put == ["run-3", "run-4", "run-5"], f"max_runs=3 lists {after_put}")
    add_runs(smoke, thread, 1, first=6)
    after_add = run_ids(smoke, thread)
    expect(after_add == ["run-4", "run-5", "run-6"], f"a 6th run with max_runs=3: {after_add}")
    stack, _, _ = prompt_stack(smoke, thread)
    expect(texts(stack)[0] == "question 4" and len(stack["messages"]) == 6, f"prompt stack: {texts(stack)}")
    return "max_runs=3: runs 3-5 listed; a 6th run → 4-6; the prompt stack holds those 3"


def check_thread_delete(smoke: Smoke) -> str:
    thread = smoke.thread("delete")
    add_runs(smoke, thread, 2)
    path = f"/threads/{quoted(thread)}"
    deleted = smoke.api.request("DELETE", path)
    expect(deleted.status == 204, f"DELETE answered {deleted.status}")
    refused(lambda: smoke.api.get_thread(thread), 404, "not_found")
    expect(smoke.api.list_runs(thread)["runs"] == [], "runs are still listed after the delete")
    stack, _, _ = prompt_stack(smoke, thread, input="hi")
    expect(texts(stack) == ["hi"], f"the prompt stack still holds history: {texts(stack)}")
    expect(smoke.api.request("DELETE", path).status == 204, "a second DELETE is not 204")
    return "DELETE → 204; GET → 404 not_found; runs and prompt history empty; DELETE again → 204"


def check_fork(smoke: Smoke) -> str:
    fork = smoke.thread("fork-child")  # cleaned up first: a parent is deleted only once its forks are gone
    parent = smoke.thread("fork-parent")
    add_runs(smoke, parent, 3)
    request = {"after_run_id": "run-2", "new_thread_id": fork, "request_id": smoke.name("fork")}
    forked = smoke.api.fork_thread(parent, **request)
    expect(forked["through_seq"] == 2 and forked["forked_from"] == parent, f"the fork answered {forked}")
    again = smoke.api.fork_thread(parent, **request)
    expect(again == {**forked, "replayed": True}, f"a retried fork answered {again}")
    add_runs(smoke, fork, 1, first=9)
    expect(run_ids(smoke, fork) == ["run-1", "run-2", "run-9"], f"the fork lists {run_ids(smoke, fork)}")
    expect(run_ids(smoke, parent) == ["run-1", "run-2", "run-3"], f"the parent lists {run_ids(smoke, parent)}")
    past = [r["run"]["id"] for r in smoke.api.list_runs(fork, as_of_run="run-1")["runs"]]
    expect(past == ["run-1"], f"as_of_run=run-1 lists {past}")
    refused(lambda: smoke.api.delete_thread(parent), 409, "thread_has_forks")
    smoke.api.delete_thread(fork)
    smoke.api.delete_thread(parent)
    return "fork after run-2 → shares 2 runs, a retry replays; fork and parent keep their own; as_of_run; delete rules"
