"""Task memory checks: process-output (text, blob, idempotency key), Griptape's reference line, byte-exact loads,
search (polled: search is near-real-time, and on OpenSearch Serverless a store is searchable only after the
collection's refresh interval, 10-60 s), namespaces, meta entries, the presigned upload, and the two large loads
(a blob over the response limit: `BlobDownloads`; a text over it: `303`). Standard library only."""

from __future__ import annotations

import base64
import hashlib
import random
import time
import uuid
from typing import Any

from .runner import Smoke, expect, quoted, refused

#: A blob whose base64 is past the 5 MB response limit (BlobDownloads); not a multiple of 3 (padded base64).
BIG_BLOB_BYTES = 6 * 1024 * 1024 + 2
#: Mostly non-ASCII characters: about 6 MB as JSON (\\u escapes), past the response limit (303), while the text
#: store indexes 1.9 M characters.
BIG_TEXT_CHARS = 1_900_000
UNICODE_LINE = 'ünïcödé ✓ "quoted" \\ €uro 🙂 groß\u2028çà '
SEARCH_POLL_S = (0.25, 0.5, 1.0, 2.0)
#: A cleanup note while an uploaded object may not be consumed yet (removed once process-output took it).
PENDING_UPLOAD = "an uploaded object no process-output consumed (uploads/ expire in 1 day)"


def artifact(kind: str, name: str, value: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """An artifact's JSON in Griptape's key order: what a load must give back, key for key."""
    return {"type": kind, "id": uuid.uuid4().hex, "reference": None, "meta": meta or {}, "name": name, "value": value}


def reference_line(tool: str, activity: str, memory: str, namespace: str) -> str:
    """Griptape's tool.j2 reference (what the model sees instead of the output)."""
    return (
        f'Output of "{tool}.{activity}" was stored in memory with memory_name "{memory}" '
        f'and artifact_namespace "{namespace}"'
    )


def artifacts_path(memory: str, namespace: str) -> str:
    return f"/memories/{quoted(memory)}/namespaces/{quoted(namespace)}/artifacts"


def loaded_items(smoke: Smoke, memory: str, namespace: str) -> list[dict[str, Any]]:
    listing = smoke.api.load_artifacts(memory, namespace, raw=True)
    expect(listing.get("type") == "ListArtifact", f"load answered a {listing.get('type')}")
    items: list[dict[str, Any]] = listing["value"]
    return items


def check_text(smoke: Smoke) -> str:
    memory = smoke.memory("TaskMemory")
    namespace = smoke.name("page")
    value = UNICODE_LINE * 2000
    page = artifact("TextArtifact", namespace, value, meta={"source": "smoke"})
    action = {"tag": "call_1", "name": "WebScraper", "path": "get_content", "input": {"values": {"url": "u"}}}
    answer = smoke.api.process_output(
        memory, "WebScraper", "get_content", page, actions=[action], thought="smoke thought", raw=True
    )
    wanted = reference_line("WebScraper", "get_content", memory, namespace)
    expect(answer.get("type") == "InfoArtifact" and answer.get("value") == wanted, f"process-output answered {answer}")
    items = loaded_items(smoke, memory, namespace)
    expect(items == [page] and list(items[0]) == list(page), "the load differs from what was stored")
    record = smoke.api.get_namespace(memory, namespace)
    expect(record["storage"] == "text" and record["tool"] == "WebScraper", f"namespace record {record}")
    expect(record["artifact_count"] == 1, f"namespace record {record}")
    listed = [n["namespace"] for n in smoke.api.iter_namespaces(memory)]
    expect(listed == [namespace], f"the memory lists {listed}")
    entries = smoke.api.meta(memory)["entries"]
    expect(len(entries) == 1, f"{len(entries)} meta entries")
    entry = entries[0]
    expect(entry["thought"] == "smoke thought" and entry["answer"] == wanted, f"meta entry {entry}")
    expect("WebScraper" in str(entry["actions"]), f"meta entry actions {entry['actions']}")
    return (
        f"{len(value.encode()) // 1000} KB of unicode text: the reference line exact, loaded back key for key; "
        "namespace record, list and the meta entry (thought, actions, answer)"
    )


def check_idempotent_output(smoke: Smoke) -> str:
    memory = smoke.memory("Idempotent")
    namespace = smoke.name("once")
    path = f"/memories/{quoted(memory)}/outputs"
    body = {
        "tool": "T",
        "activity": "a",
        "artifact": artifact("TextArtifact", namespace, "stored once"),
        "idempotency_key": smoke.name("key-1"),
    }
    first = smoke.api.request("POST", path, json_body=body)
    again = smoke.api.request("POST", path, json_body=body)
    flags = (first.headers.get("x-offprompt-replayed"), again.headers.get("x-offprompt-replayed"))
    expect(flags == ("false", "true"), f"X-Offprompt-Replayed: {flags}, wanted false then true")
    expect(again.json() == first.json(), "the replay answered something else")
    expect(len(loaded_items(smoke, memory, namespace)) == 1, "the retry stored the output again")
    other = {**body, "artifact": artifact("TextArtifact", namespace, "another output")}
    refused(lambda: smoke.api.request("POST", path, json_body=other), 409, "conflict")
    return "idempotency_key: the retry replayed (X-Offprompt-Replayed: true), stored once; another body → 409"


def check_blob(smoke: Smoke) -> str:
    memory = smoke.memory("Blobs")
    namespace = smoke.name("blob")
    data = bytes(range(256)) * 64 + b"\x00\xff"
    blob = artifact("BlobArtifact", namespace, base64.b64encode(data).decode("ascii"), meta={"kind": "bytes"})
    answer = smoke.api.process_output(memory, "Camera", "shoot", blob, raw=True)
    expect(answer.get("value") == reference_line("Camera", "shoot", memory, namespace), f"answered {answer}")
    items = loaded_items(smoke, memory, namespace)
    expect(items == [blob], "the blob loaded back differs")
    expect(base64.b64decode(items[0]["value"]) == data, "the blob's bytes differ")
    record = smoke.api.get_namespace(memory, namespace)
    expect(record["storage"] == "blob", f"namespace record {record}")
    return f"a {len(data):,}-byte BlobArtifact stored inline, loaded back byte-exact (storage blob)"


def search_until_visible(smoke: Smoke, memory: str, namespace: str, query: str) -> tuple[list[Any], float]:
    """Search until there are hits or `--search-wait` seconds passed; the hits and how long it took."""
    started = time.monotonic()
    polls = 0
    while True:
        hits: list[Any] = smoke.api.search(memory, namespace, query, top_k=3)["hits"]
        waited = time.monotonic() - started
        left = smoke.options.search_wait - waited
        if hits or left <= 0:
            return hits, waited
        time.sleep(min(SEARCH_POLL_S[min(polls, len(SEARCH_POLL_S) - 1)], left))
        polls += 1


def check_search(smoke: Smoke) -> str:
    memory = smoke.memory("Search")
    namespace = smoke.name("notes")
    word = "zq" + smoke.prefix.rsplit("-", 1)[-1]  # one token no other text has
    notes = [
        artifact("TextArtifact", f"{namespace}-1", "A recipe for banana bread with walnuts."),
        artifact("TextArtifact", f"{namespace}-2", f"The smoke's marker word is {word}, in this note only."),
    ]
    listing = {"type": "ListArtifact", "name": namespace, "value": notes}
    smoke.api.process_output(memory, "Notes", "save", listing, raw=True)
    hits, waited = search_until_visible(smoke, memory, namespace, word)
    wait = smoke.options.search_wait
    expect(hits, f"not searchable after {waited:.1f} s (--search-wait {wait:g} s)")
    expect(word in hits[0]["text"] and hits[0]["artifact_id"] == notes[1]["id"], f"the first hit is {hits[0]}")
    expect(len(hits) == 1, f"{len(hits)} hits for a word one note has")
    none = smoke.api.search(memory, namespace, "zz" + word)["hits"]
    expect(none == [], f"a word no note has found {none}")
    return f"BM25: the marked note found after {waited:.1f} s (bounded wait {wait:g} s), position {hits[0]['position']}"


def check_upload(smoke: Smoke) -> str:
    memory = smoke.memory("Uploads")
    namespace = smoke.name("upload")
    data = random.Random(11).randbytes(300_000)
    ticket = smoke.api.create_upload(memory)
    expect({"upload_id", "url", "expires_in"} <= set(ticket), f"upload ticket {sorted(ticket)}")
    smoke.cleanup.notes.append(PENDING_UPLOAD)  # until process-output consumed it
    status = smoke.api.upload_bytes(ticket["url"], data, ticket.get("headers"))
    expect(status in (200, 201, 204), f"the presigned PUT answered {status}")
    envelope = {"type": "BlobArtifact", "name": namespace, "meta": {"via": "upload"}}
    value_from = {"upload_id": ticket["upload_id"]}
    answer = smoke.api.process_output(memory, "Camera", "shoot", envelope, value_from=value_from, raw=True)
    smoke.cleanup.notes.remove(PENDING_UPLOAD)
    expect(answer.get("value") == reference_line("Camera", "shoot", memory, namespace), f"answered {answer}")
    items = loaded_items(smoke, memory, namespace)
    expect(len(items) == 1 and base64.b64decode(items[0]["value"]) == data, "the uploaded bytes loaded back differ")
    expect(items[0]["meta"] == {"via": "upload"}, f"the envelope's meta came back as {items[0]['meta']}")
    again = {**envelope, "name": smoke.name("upload-again")}
    refused(lambda: smoke.api.process_output(memory, "C", "s", again, value_from=value_from), 400, "invalid_upload")
    return "presigned PUT of 300 KB, then value_from: loaded back byte-exact with its envelope; reuse → 400"


def check_namespaces(smoke: Smoke) -> str:
    memory = smoke.memory("Namespaces")
    names = [smoke.name("ns-a"), smoke.name("ns-b")]
    for name in names:
        smoke.api.process_output(memory, "T", "a", artifact("TextArtifact", name, f"text of {name}"), raw=True)
    first = smoke.api.list_namespaces(memory, limit=1)
    expect(len(first["namespaces"]) == 1 and first.get("next_cursor"), f"limit=1 answered {first}")
    listed = [n["namespace"] for n in smoke.api.iter_namespaces(memory, page_size=1)]
    expect(sorted(listed) == sorted(names), f"listed {listed}")
    record = smoke.api.get_namespace(memory, names[0])
    expect(record["namespace"] == names[0] and record["artifact_count"] == 1, f"GET {record}")
    path = f"/memories/{quoted(memory)}/namespaces/{quoted(names[0])}"
    expect(smoke.api.request("DELETE", path).status == 204, "DELETE is not 204")
    refused(lambda: smoke.api.get_namespace(memory, names[0]), 404, "not_found")
    expect(loaded_items(smoke, memory, names[0]) == [], "the deleted namespace still loads artifacts")
    remaining = [n["namespace"] for n in smoke.api.iter_namespaces(memory)]
    expect(remaining == [names[1]], f"after the delete the memory lists {remaining}")
    expect(smoke.api.request("DELETE", path).status == 204, "a second DELETE is not 204")
    return "2 namespaces listed by cursor (limit=1); GET; DELETE → 204, GET → 404, load empty; DELETE again → 204"


def check_big_blob(smoke: Smoke) -> str:
    memory = smoke.memory("BigBlob")
    namespace = smoke.name("big-blob")
    data = random.Random(5).randbytes(BIG_BLOB_BYTES)
    smoke.cleanup.notes.append(PENDING_UPLOAD)
    smoke.api.process_upload(memory, "Camera", "shoot", data, artifact={"type": "BlobArtifact", "name": namespace})
    smoke.cleanup.notes.remove(PENDING_UPLOAD)
    response = smoke.api.request("GET", artifacts_path(memory, namespace))
    listing = response.json()
    expect(response.status == 200 and listing.get("type") == "BlobDownloads", f"load answered {response.status}")
    expect(listing["size"] == len(data) and len(listing["artifacts"]) == 1, f"BlobDownloads {listing}")
    items = loaded_items(smoke, memory, namespace)
    expect(
        hashlib.sha256(base64.b64decode(items[0]["value"])).digest() == hashlib.sha256(data).digest(), "bytes differ"
    )
    return f"{len(data) / 1e6:.1f} MB blob by upload: load → 200 BlobDownloads (presigned GET), bytes equal"


def check_big_text(smoke: Smoke) -> str:
    memory = smoke.memory("BigText")
    namespace = smoke.name("big-text")
    value = (UNICODE_LINE * (BIG_TEXT_CHARS // len(UNICODE_LINE) + 1))[:BIG_TEXT_CHARS]
    envelope = {"type": "TextArtifact", "name": namespace}
    smoke.cleanup.notes.append(PENDING_UPLOAD)
    smoke.api.process_upload(memory, "Reader", "read", value, artifact=envelope)
    smoke.cleanup.notes.remove(PENDING_UPLOAD)
    response = smoke.api.request("GET", artifacts_path(memory, namespace))
    if response.status == 303:
        smoke.cleanup.notes.append("the 303's copy under downloads/ (expires in 1 day)")
    expect(response.status == 303 and response.headers.get("location"), f"load answered {response.status}")
    items = loaded_items(smoke, memory, namespace)
    expect(len(items) == 1 and items[0]["value"] == value, "the text loaded through the 303 differs")
    return f"{BIG_TEXT_CHARS / 1e6:.1f} M characters (~6 MB as JSON) by upload: load → 303 to a presigned GET, exact"
