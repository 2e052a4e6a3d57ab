"""A scripted agent session against a running local stack (`make dev`, then `make demo`).

    python -m offprompt_local.demo [--url http://127.0.0.1:3000] [--tenant demo] [--keep]

A few conversation turns (add-run), a prompt stack under a token budget, a ~2 MB tool output stored off-prompt
(process-output), a binary blob through a presigned upload, both loaded back byte-exact, a search over the
stored text, a semantic (k-NN and hybrid) search that finds "car" in a note about an automobile (skipped when the
stack has no embedder), the namespaces and meta entries, long-term records (a fact stored, replaced, the current
and the old version read back `as_of`, searched, its history), and finally the cleanup. Each step prints what
happened; the last line is a one-line summary. Any mismatch exits with status 1 (2 when the API cannot be reached).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

from offprompt_client import OffpromptClient, OffpromptClientError, OffpromptConnectionError

from .datadir import CONNECTION_FILE, data_dir_from_env

DEFAULT_URL = "http://127.0.0.1:3000"
URL_ENV = "OFFPROMPT_API_URL"
MEMORY = "TaskMemory"
#: Search is near-real-time (OpenSearch: the next refresh, 1 s by default); the demo waits this long at most.
SEARCH_VISIBLE_WITHIN_S = 15.0
NEEDLE = "The launch code for the demo rocket is AZURE-PELICAN-42."
TURNS = (
    ("Hi, I'm Ada. I'm planning a trip to Lisbon.", "Nice to meet you, Ada! When are you going?"),
    ("In May, for a week. I love seafood.", "May is lovely there. Try the grilled sardines in Alfama."),
    ("What about day trips?", "Sintra is 40 minutes by train: palaces, gardens and forest walks."),
    ("Great. Please remember I'm vegetarian on Mondays.", "Noted: vegetarian on Mondays."),
)
#: Step 6b: notes none of which contains the query's word; the automobile one is what it means.
NOTES = (
    "A recipe for banana bread with walnuts and cinnamon.",
    "The automobile was parked in the garage overnight.",
    "Quarterly tax filing deadlines for small businesses.",
    "The orchestra rehearsed the symphony until midnight.",
)
SEMANTIC_QUERY = "car"
#: Step 8: one fact, then what replaced it.
FACT_KEY = "diet"
FACTS = (
    {"text": "Ada is vegetarian on Mondays.", "since": 2025},
    {"text": "Ada is vegetarian every day now.", "since": 2026},
)
SEMANTIC_ANSWER = 1
_WORDS = [
    "memory",
    "agent",
    "token",
    "prompt",
    "river",
    "harbor",
    "lantern",
    "orbit",
    "meadow",
    "signal",
    "copper",
    "violet",
    "canyon",
    "ember",
    "quartz",
    "willow",
    "falcon",
    "glacier",
    "mosaic",
    "thunder",
    "saffron",
    "beacon",
    "cobalt",
    "prairie",
    "zephyr",
    "marble",
    "tundra",
    "citadel",
]


class Mismatch(Exception):
    """What the API returned is not what the demo expected."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


def step(number: int | str, title: str) -> None:
    print(f"\n[{number}] {title}", flush=True)


def say(message: str) -> None:
    print(f"    {message}", flush=True)


def generated_page(size: int, seed: int = 7) -> str:
    """A deterministic ~`size`-byte web page of pseudo-text with NEEDLE in the middle."""
    rng = random.Random(seed)
    paragraphs: list[str] = []
    total = 0
    while total < size:
        sentences = []
        for _ in range(rng.randint(3, 7)):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 16))]
            sentences.append(" ".join(words).capitalize() + ".")
        paragraph = " ".join(sentences)
        paragraphs.append(paragraph)
        total += len(paragraph) + 2
    paragraphs.insert(len(paragraphs) // 2, NEEDLE)
    return "\n\n".join(paragraphs)


def search_until_found(
    api: OffpromptClient,
    memory: str,
    namespace: str,
    query: str,
    *,
    top_k: int,
    within: float | None = None,
    mode: str | None = None,
) -> tuple[list[dict[str, Any]], float]:
    """Search until there are hits or `within` seconds have passed: (hits, seconds waited).

    Text stored a moment ago becomes searchable at the index's next refresh (near-real-time search), so an
    empty answer right after a store is expected; an empty answer after `within` seconds is not.
    """
    deadline = SEARCH_VISIBLE_WITHIN_S if within is None else within
    started = time.monotonic()
    pause = 0.1
    while True:
        hits: list[dict[str, Any]] = api.search(memory, namespace, query, top_k=top_k, mode=mode)["hits"]
        waited = time.monotonic() - started
        if hits or waited >= deadline:
            return hits, waited
        time.sleep(min(pause, max(0.0, deadline - waited)))
        pause = min(pause * 2, 1.0)


def run_demo(api: OffpromptClient, *, keep: bool = False, text_bytes: int = 2_000_000) -> str:
    started = time.monotonic()
    tag = uuid.uuid4().hex[:8]
    thread = f"demo-{tag}"

    step(1, f"conversation: {len(TURNS)} turns into thread {thread!r} (POST /threads/{{id}}/runs)")
    first_run = None
    for number, (user, assistant) in enumerate(TURNS, 1):
        added = api.add_run(thread, input=user, output=assistant, id=f"{tag}-run-{number}")
        check(added["seq"] == number, f"run {number} got seq {added['seq']}")
        first_run = first_run or added["run"]
        say(f"run {added['seq']}: user {user!r}")
    replay = api.add_run(thread, first_run)  # a client retrying after a timeout sends the same run again
    check(replay["seq"] == 1, f"a retried run must be idempotent, got seq {replay['seq']}")
    say("retried run 1 with the same id: same seq, nothing duplicated")
    runs = api.all_runs(thread, page_size=2)
    check(len(runs) == len(TURNS), f"expected {len(TURNS)} runs, listed {len(runs)}")
    say(f"listed {len(runs)} runs in pages of 2 (cursor paging)")

    step(2, "prompt stack under a token budget (POST /threads/{id}/prompt-stack)")
    question = "Where should I eat on Monday?"
    full = api.prompt_stack(thread, system="You are a travel assistant.", input=question)
    budget = 80
    tight = api.prompt_stack(thread, system="You are a travel assistant.", input=question, max_tokens=budget)
    full_messages, tight_messages = full.messages, tight.messages
    check(len(full_messages) == 2 + 2 * len(TURNS), f"unbudgeted stack has {len(full_messages)} messages")
    check(full_messages[0].role == "system" and full_messages[-1].role == "user", "system first, input last")
    check(2 <= len(tight_messages) < len(full_messages), f"budget {budget} kept {len(tight_messages)} messages")
    check(tight_messages[-1].to_text() == question, "the new input must close the stack")
    kept_runs = (len(tight_messages) - 2) // 2
    say(f"no budget: {len(full_messages)} messages (system + {len(TURNS)} runs + input)")
    say(f"max_tokens={budget}: {len(tight_messages)} messages, the newest {kept_runs} run(s) kept")

    step(3, f"a ~{text_bytes / 1e6:.1f} MB tool output stored off-prompt (POST /memories/{{m}}/outputs)")
    page = generated_page(text_bytes)
    text_ns = f"web_page_{tag}"
    artifact = {"type": "TextArtifact", "name": text_ns, "value": page, "meta": {"url": "https://example.org/"}}
    action = {"tag": "call_1", "name": "WebScraper", "path": "get_content", "input": {"values": {"url": "x"}}}
    info = api.process_output(
        MEMORY, "WebScraper", "get_content", artifact, actions=[action], thought="Read the page.", raw=True
    )
    expected = (
        f'Output of "WebScraper.get_content" was stored in memory with memory_name "{MEMORY}" '
        f'and artifact_namespace "{text_ns}"'
    )
    stored_at = time.monotonic()
    check(info.get("type") == "InfoArtifact" and info.get("value") == expected, f"unexpected reference {info}")
    say(f"{len(page.encode()):,} bytes in, the model sees only: {info['value']!r}")

    step(4, "a binary blob through a presigned S3 upload (POST /memories/{m}/uploads + PUT)")
    blob = random.Random(11).randbytes(1_000_000)
    blob_ns = f"screenshot_{tag}"
    blob_info = api.process_upload(
        MEMORY, "Browser", "screenshot", blob, artifact={"type": "BlobArtifact", "name": blob_ns}, raw=True
    )
    check(blob_info.get("type") == "InfoArtifact" and blob_ns in str(blob_info.get("value")), f"got {blob_info}")
    say(f"{len(blob):,} bytes uploaded straight to S3; reference: {blob_info['value']!r}")

    step(5, "load both namespaces back (GET /memories/{m}/namespaces/{ns}/artifacts)")
    loaded = api.load_artifacts(MEMORY, text_ns, raw=True)
    values = loaded.get("value") or []
    check(loaded.get("type") == "ListArtifact" and len(values) == 1, f"text namespace holds {len(values)} artifacts")
    check(values[0].get("value") == page, "the loaded text differs from what was stored")
    check(values[0].get("meta") == artifact["meta"], "the loaded text lost its meta")
    say(f"text: 1 TextArtifact, {len(values[0]['value'].encode()):,} bytes, sha256 {_sha(page.encode())} (identical)")
    loaded_blob = api.load_artifacts(MEMORY, blob_ns)
    got = loaded_blob[0].to_bytes()
    check(got == blob, "the loaded blob differs from what was uploaded")
    say(f"blob: 1 BlobArtifact, {len(got):,} bytes, sha256 {_sha(got)} (identical)")

    step(6, "search the stored text (POST /memories/{m}/namespaces/{ns}/search)")
    # Load is real-time, search is near-real-time: new text is searchable after the index's next refresh
    # (about 1 s on OpenSearch), so a search right after the store may answer {"hits": []} at first.
    hits, waited = search_until_found(api, MEMORY, text_ns, "rocket launch code", top_k=3)
    check(bool(hits), f"search found nothing within {SEARCH_VISIBLE_WITHIN_S:.0f}s")
    check("AZURE-PELICAN-42" in hits[0]["text"], f"the best hit does not hold the needle: {hits[0]['text'][:80]!r}")
    since_store = time.monotonic() - stored_at
    say(f"searchable {since_store:.1f}s after the store (polled {waited:.1f}s; search is near-real-time)")
    say(f"{len(hits)} hit(s); best (score {hits[0]['score']:.2f}) holds {NEEDLE!r}")

    semantic = semantic_search(api, f"notes_{tag}")

    step(7, "namespaces and meta memory (GET /memories/{m}/namespaces, /meta)")
    names = {ns["namespace"]: ns for ns in api.iter_namespaces(MEMORY)}
    check(text_ns in names and blob_ns in names, f"namespaces listed: {sorted(names)[:10]}")
    say(f"{text_ns}: {names[text_ns]['storage']}, {names[text_ns]['total_bytes']:,} bytes")
    say(f"{blob_ns}: {names[blob_ns]['storage']}, {names[blob_ns]['total_bytes']:,} bytes")
    entries = [e for e in api.iter_meta(MEMORY) if e.get("answer") == expected]
    check(len(entries) == 1 and entries[0].get("thought") == "Read the page.", "meta entry missing")
    say(f"meta entry: thought {entries[0]['thought']!r}, answer is the reference")

    step("7b", "memory events for your own extraction, in the local sink (GET /local/events; ADR 0036)")
    mine = memory_events(api, thread, text_ns, len(TURNS))
    for kind in ("run.added", "output.stored"):
        sample = next(e for e in mine if e["type"] == kind)
        say(f"{kind}: {json.dumps(sample['detail'])}")
    check(page[:40] not in json.dumps(mine) and TURNS[0][0] not in json.dumps(mine), "an event carried a value")
    say(f"{len(mine)} events of this demo (ids and sizes only; deployed: the stack's EventBridge bus)")

    remembered = long_term_records(api, ["demo", tag, "facts"])

    if not keep:
        step(9, "clean up (DELETE namespaces, the record and the thread)")
        for ns in (text_ns, blob_ns, *([f"notes_{tag}"] if semantic else [])):
            api.delete_namespace(MEMORY, ns)
            try:
                api.get_namespace(MEMORY, ns)
                raise Mismatch(f"namespace {ns} still exists after DELETE")
            except OffpromptClientError as exc:
                check(exc.status == 404, f"expected 404 after delete, got {exc.status}")
        api.delete_record(["demo", tag, "facts"], FACT_KEY)
        try:
            api.get_record(["demo", tag, "facts"], FACT_KEY)
            raise Mismatch("the record is still there after DELETE")
        except OffpromptClientError as exc:
            check(exc.status == 404, f"expected 404 after the record's delete, got {exc.status}")
        api.delete_thread(thread)
        check(api.list_runs(thread)["runs"] == [], "runs still listed after the thread was deleted")
        say("deleted; reads now answer 404 / empty")

    elapsed = time.monotonic() - started
    return (
        f"demo OK in {elapsed:.1f}s: {len(TURNS)} runs, prompt stack {len(tight_messages)}/{len(full_messages)} "
        f"messages at max_tokens={budget}, {len(page.encode()) / 1e6:.1f} MB text + {len(blob) / 1e6:.1f} MB blob "
        f"stored off-prompt and loaded back byte-exact, search found the needle"
        + (f"; {semantic}" if semantic else "")
        + f"; {remembered}"
    )


def memory_events(api: OffpromptClient, thread: str, namespace: str, runs: int) -> list[dict[str, Any]]:
    """The local sink's events of this demo's thread and text namespace, once every run and the store are there
    (the stack's poller reads the table's stream every 0.2 s)."""
    deadline = time.monotonic() + 30
    while True:
        found = api.request("GET", "/local/events").json()["events"]
        mine = [e for e in found if thread in json.dumps(e["detail"]) or namespace in json.dumps(e["detail"])]
        kinds = [e["type"] for e in mine]
        if (kinds.count("run.added") >= runs and "output.stored" in kinds) or time.monotonic() > deadline:
            check(kinds.count("run.added") >= runs and "output.stored" in kinds, f"events in the sink: {kinds}")
            tenant = api.headers.get("X-Offprompt-Tenant", "local")  # the stack's default tenant without the header
            check(
                {e["tenant"] for e in mine} == {tenant},
                f"events of other tenants: {sorted({e['tenant'] for e in mine})}",
            )
            return mine
        time.sleep(0.2)


def semantic_search(api: OffpromptClient, namespace: str) -> str:
    """Step 6b: k-NN and hybrid search find a note by meaning, not by its words; "" when the stack has no embedder.

    The local stack embeds with wordllama (a small local stand-in for Bedrock Titan); "car" shares no word with
    the note about an automobile, so only semantic search can find it.
    """
    step("6b", "semantic search: k-NN and hybrid (mode knn / hybrid)")
    notes = {"type": "ListArtifact", "name": namespace, "value": [{"type": "TextArtifact", "value": n} for n in NOTES]}
    api.process_output(MEMORY, "Notes", "save", notes, raw=True)
    best: dict[str, str] = {}
    for mode in ("knn", "hybrid"):
        try:
            hits, _ = search_until_found(api, MEMORY, namespace, SEMANTIC_QUERY, top_k=3, mode=mode)
        except OffpromptClientError as exc:
            if exc.status == 400 and "embedder" in str(exc):
                say(f"skipped: this stack has no embedder ({exc}); search is BM25 only")
                api.delete_namespace(MEMORY, namespace)
                return ""
            raise
        check(bool(hits), f"{mode} search found nothing within {SEARCH_VISIBLE_WITHIN_S:.0f}s")
        check(hits[0]["text"] == NOTES[SEMANTIC_ANSWER], f"{mode}: the best hit for {SEMANTIC_QUERY!r} is {hits[0]}")
        best[mode] = f"{hits[0]['score']:.3f}"
        say(f"{mode:6s} {SEMANTIC_QUERY!r} -> {hits[0]['text']!r} (score {hits[0]['score']:.3f})")
    lexical = api.search(MEMORY, namespace, SEMANTIC_QUERY, top_k=3, mode="bm25")["hits"]
    say(f"bm25   {SEMANTIC_QUERY!r} -> {len(lexical)} hit(s): no note contains the word")
    return f"knn and hybrid found {SEMANTIC_QUERY!r} -> automobile"


def records_until_found(
    api: OffpromptClient, namespace_prefix: list[str], query: str, *, within: float = SEARCH_VISIBLE_WITHIN_S
) -> tuple[list[dict[str, Any]], float]:
    """Search records until there are items or `within` seconds have passed: (items, seconds waited). A record is
    searchable by text at the index's next refresh, as stored text is (`search_until_found`)."""
    started = time.monotonic()
    pause = 0.1
    while True:
        items: list[dict[str, Any]] = api.search_records(namespace_prefix, query=query, limit=5)["items"]
        waited = time.monotonic() - started
        if items or waited >= within:
            return items, waited
        time.sleep(min(pause, max(0.0, within - waited)))
        pause = min(pause * 2, 1.0)


def long_term_records(api: OffpromptClient, namespace: list[str]) -> str:
    """Step 8: a fact as a long-term record (docs/adr/0034): stored, replaced ("latest truth wins"), the current
    version and the old one (`as_of` its time) read back, found by text, and its history."""
    path = ".".join(namespace)
    step(8, f"long-term records: a fact in {path!r} (PUT/GET /records/{{ns}}/{{key}}, search, history)")
    old, new = FACTS
    first = api.put_record(namespace, FACT_KEY, old)
    check(first["version"] == 1 and first["value"] == old, f"the first put answered {first}")
    say(f"stored   v1 {old['text']!r}")
    time.sleep(0.01)  # the replacement starts a later millisecond, so v1 has a moment of its own
    second = api.put_record(namespace, FACT_KEY, new)
    check(second["version"] == 2 and second["created_at"] == first["created_at"], f"the replace answered {second}")
    say(f"replaced v2 {new['text']!r} (v1 kept in the history)")

    current = api.get_record(namespace, FACT_KEY)
    check(current["value"] == new and current["version"] == 2, f"the current record is {current}")
    say(f"current:        v{current['version']} {current['value']['text']!r}")
    then = api.get_record(namespace, FACT_KEY, as_of=first["updated_at"])
    check(then["value"] == old and then["version"] == 1, f"as_of {first['updated_at']} read {then}")
    check(then["valid_to"] == second["valid_from"], f"v1 must end where v2 starts: {then['valid_to']}")
    say(f"as_of {first['updated_at']}: v{then['version']} {then['value']['text']!r} (valid until {then['valid_to']})")

    items, waited = records_until_found(api, namespace[:2], "vegetarian")
    check(bool(items), f"record search found nothing within {SEARCH_VISIBLE_WITHIN_S:.0f}s")
    check([(i["key"], i["version"]) for i in items] == [(FACT_KEY, 2)], f"the search answered {items}")
    say(f"search 'vegetarian': v2 only (score {items[0]['score']:.2f}; polled {waited:.1f}s), never the replaced v1")
    by_filter = api.search_records(namespace[:2], filter={"since": {"$gte": 2026}})["items"]
    check([i["version"] for i in by_filter] == [2], f"the filtered search answered {by_filter}")
    say("filter since >= 2026: v2")

    versions = api.record_history(namespace, FACT_KEY)["versions"]
    check([v["version"] for v in versions] == [2, 1], f"the history is {versions}")
    for v in versions:
        say(f"history v{v['version']}: {v['value']['text']!r}, valid {v['valid_from']} .. {v['valid_to'] or 'now'}")
    return "a fact replaced: current v2, v1 as_of its time, search finds v2 only, history v2 v1"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def unreachable(url: str, reason: str) -> str:
    """Why the demo stopped, and the fix: the URL of a local stack that runs elsewhere (its data directory's
    stack.json says where), else how to start one or point the demo at one."""
    running = ""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        connection = json.loads((data_dir_from_env() / CONNECTION_FILE).read_text(encoding="utf-8"))
        running = str(connection.get("api_url") or "").rstrip("/")
    if running and running != url.rstrip("/"):
        return (
            f"cannot reach the API at {url} ({reason}); a local stack runs at {running}: "
            f"OFFPROMPT_API_URL={running} make demo (or --url {running})"
        )
    return (
        f"cannot reach the API at {url} ({reason}); start the stack first: make dev, or, if it runs at another URL "
        f"(another OFFPROMPT_PORT, or deployed), point the demo at it: OFFPROMPT_API_URL=<url> make demo"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get(URL_ENV, DEFAULT_URL), help=f"API URL (default {DEFAULT_URL})")
    parser.add_argument("--tenant", default="demo", help="X-Offprompt-Tenant (local stack only)")
    parser.add_argument("--keep", action="store_true", help="keep the thread and namespaces afterwards")
    args = parser.parse_args(argv)
    api = OffpromptClient(args.url, tenant=args.tenant, timeout=120)
    print(f"offprompt demo against {args.url} (tenant {args.tenant!r})", flush=True)
    try:
        summary = run_demo(api, keep=args.keep)
    except OffpromptConnectionError as exc:
        print(f"\n{unreachable(args.url, exc.message)}", file=sys.stderr)
        return 2
    except (Mismatch, OffpromptClientError) as exc:
        print(f"\nMISMATCH: {exc}", file=sys.stderr)
        return 1
    print(f"\n{summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
