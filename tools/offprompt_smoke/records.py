"""Long-term records (docs/adr/0034) through `OffpromptClient`'s record methods: put and get, a replace with its
history and the old version `as_of` its time, search (text polled until visible, filters, as_of), namespaces and a
namespace's default TTL, delete. Every record lives under a namespace whose first label is the run's prefix and
expires after `RECORD_TTL_MINUTES` (a delete keeps a tombstone and the past versions until then: the history
`as_of` reads; the cleanup row says so)."""

from __future__ import annotations

import time
from typing import Any

from .runner import Smoke, expect, refused
from .task_memory import SEARCH_POLL_S

#: Every smoke record expires after this long, its history (past versions, the tombstone) with it.
RECORD_TTL_MINUTES = 60
KEY = "diet"
FACTS = (
    {"text": "Ada is vegetarian on Mondays.", "since": 2025},
    {"text": "Ada is vegetarian every day now.", "since": 2026},
)


def namespace(smoke: Smoke, *labels: str) -> list[str]:
    """A record namespace under the run's prefix (its first label), deleted by the cleanup row."""
    return [smoke.prefix, *labels]


def marker(smoke: Smoke) -> str:
    return "zr" + smoke.prefix.rsplit("-", 1)[-1]  # one token no other record has


def fact(smoke: Smoke, n: int) -> dict[str, Any]:
    value = dict(FACTS[n])
    value["text"] = f"{value['text']} {marker(smoke)}"
    return value


def put(smoke: Smoke, ns: list[str], key: str, value: dict[str, Any], **options: Any) -> dict[str, Any]:
    smoke.cleanup.records.append((ns, key))
    record: dict[str, Any] = smoke.api.put_record(ns, key, value, **options)
    return record


def check_put_get(smoke: Smoke) -> str:
    api, ns = smoke.api, namespace(smoke, "facts")
    first = put(smoke, ns, KEY, fact(smoke, 0), ttl_minutes=RECORD_TTL_MINUTES)
    expect(first["namespace"] == ns and first["key"] == KEY, f"PUT answered {first}")
    expect(first["version"] == 1 and first["value"] == fact(smoke, 0), f"PUT answered {first}")
    expect(first["expires_at"] is not None and first["valid_to"] is None, f"PUT answered {first}")
    got = api.get_record(ns, KEY, refresh_ttl=False)
    expect(got == first, f"GET answered {got}, PUT {first}")
    refused(lambda: api.get_record(ns, "no-such-key"), 404, "record_not_found")
    smoke.state["record_v1"] = first
    return (
        f"PUT v1 (ttl_minutes {RECORD_TTL_MINUTES}) → the record; GET the same; an unknown key → 404 record_not_found"
    )


def replaced(smoke: Smoke) -> tuple[dict[str, Any], dict[str, Any]]:
    """v1 and v2 of the fact: the earlier checks' (`--only` may have left them out: then made here)."""
    ns = namespace(smoke, "facts")
    if "record_v1" not in smoke.state:
        smoke.state["record_v1"] = put(smoke, ns, KEY, fact(smoke, 0), ttl_minutes=RECORD_TTL_MINUTES)
    if "record_v2" not in smoke.state:
        time.sleep(0.01)  # the replace starts a later millisecond: v1 keeps a moment of its own
        smoke.state["record_v2"] = put(smoke, ns, KEY, fact(smoke, 1), ttl_minutes=RECORD_TTL_MINUTES)
    return smoke.state["record_v1"], smoke.state["record_v2"]


def check_replace_history(smoke: Smoke) -> str:
    api, ns = smoke.api, namespace(smoke, "facts")
    first, second = replaced(smoke)
    expect(second["version"] == first["version"] + 1, f"the replace answered version {second['version']}")
    expect(second["created_at"] == first["created_at"], f"created_at moved: {first['created_at']} → {second}")
    current = api.get_record(ns, KEY, refresh_ttl=False)
    expect(current["value"] == fact(smoke, 1) and current["version"] == second["version"], f"GET answered {current}")
    then = api.get_record(ns, KEY, as_of=first["updated_at"])
    expect(then["value"] == fact(smoke, 0) and then["version"] == first["version"], f"as_of v1's time: {then}")
    expect(then["valid_to"] == second["valid_from"], f"v1 ends at {then['valid_to']}, v2 starts {second['valid_from']}")
    versions = api.record_history(ns, KEY)["versions"]
    seen = [(v["version"], v["deleted"]) for v in versions]
    expect(seen == [(second["version"], False), (first["version"], False)], f"history {seen}")
    return "PUT again → v2 (created_at kept); GET → v2; as_of v1's updated_at → v1, valid until v2; history v2, v1"


def records_until_visible(smoke: Smoke, prefix: list[str], query: str) -> tuple[list[Any], float]:
    """Search records until there are items or `--search-wait` seconds passed; the items and how long it took."""
    started = time.monotonic()
    polls = 0
    while True:
        items: list[Any] = smoke.api.search_records(prefix, query=query, limit=5)["items"]
        waited = time.monotonic() - started
        left = smoke.options.search_wait - waited
        if items or left <= 0:
            return items, waited
        time.sleep(min(SEARCH_POLL_S[min(polls, len(SEARCH_POLL_S) - 1)], left))
        polls += 1


def check_search(smoke: Smoke) -> str:
    api, ns, word = smoke.api, namespace(smoke, "facts"), marker(smoke)
    first, second = replaced(smoke)
    prefix = [smoke.prefix]
    items, waited = records_until_visible(smoke, prefix, word)
    wait = smoke.options.search_wait
    expect(items, f"no record searchable after {waited:.1f} s (--search-wait {wait:g} s)")
    found = [(i["namespace"], i["key"], i["version"]) for i in items]
    expect(found == [(ns, KEY, second["version"])], f"the text search found {found}: only the current version")
    expect(isinstance(items[0]["score"], float | int) and items[0]["score"] > 0, f"score {items[0]['score']}")
    by_filter = api.search_records(prefix, filter={"since": {"$gte": 2026}})["items"]
    expect([i["version"] for i in by_filter] == [second["version"]], f"filter since ≥ 2026 found {by_filter}")
    stale = api.search_records(prefix, filter={"since": 2025})["items"]
    expect(stale == [], f"filter since = 2025 found the replaced version: {stale}")
    then = api.search_records(prefix, filter={"since": 2025}, as_of=first["updated_at"])["items"]
    expect([i["version"] for i in then] == [first["version"]], f"as_of v1's time the filter found {then}")
    elsewhere = api.search_records([smoke.name("elsewhere")], query=word)["items"]
    expect(elsewhere == [], f"another prefix found {elsewhere}")
    return (
        f"text: v2 only, found after {waited:.1f} s (bounded wait {wait:g} s); filter since ≥ 2026 → v2, = 2025 → "
        "none, as_of v1's time → v1; another prefix → none"
    )


def check_namespaces(smoke: Smoke) -> str:
    api = smoke.api
    prefs = namespace(smoke, "prefs")
    smoke.cleanup.record_namespaces.append(prefs)
    configured = api.configure_record_namespace(prefs, default_ttl_minutes=RECORD_TTL_MINUTES)
    expect(configured == {"namespace": prefs, "default_ttl_minutes": RECORD_TTL_MINUTES}, f"answered {configured}")
    inherited = put(smoke, prefs, "theme", {"text": "dark mode"})  # no ttl_minutes: the namespace's
    expect(inherited["expires_at"] is not None, f"a put into {prefs} took no default TTL: {inherited}")
    listed = api.list_record_namespaces(prefix=[smoke.prefix])["namespaces"]
    expect(sorted(listed) == sorted([namespace(smoke, "facts"), prefs]), f"namespaces under the prefix: {listed}")
    top = api.list_record_namespaces(prefix=[smoke.prefix], max_depth=1)["namespaces"]
    expect(top == [[smoke.prefix]], f"max_depth=1 listed {top}")
    by_suffix = api.list_record_namespaces(prefix=[smoke.prefix], suffix=["prefs"])["namespaces"]
    expect(by_suffix == [prefs], f"suffix prefs listed {by_suffix}")
    return "a namespace's default TTL set and taken by a put; listed by prefix (2), max_depth=1, suffix"


def check_delete(smoke: Smoke) -> str:
    api, ns = smoke.api, namespace(smoke, "facts")
    replaced(smoke)
    api.delete_record(ns, KEY)
    refused(lambda: api.get_record(ns, KEY), 404, "record_not_found")
    api.delete_record(ns, KEY)  # idempotent: 204 again
    versions = api.record_history(ns, KEY)["versions"]
    expect(versions[0]["deleted"] is True and versions[0]["value"] is None, f"history after the delete: {versions}")
    expect([v["deleted"] for v in versions[1:]] == [False, False], f"history after the delete: {versions}")
    gone = api.search_records([smoke.prefix], filter={"since": {"$gte": 2026}})["items"]
    expect(gone == [], f"a deleted record is still found: {gone}")
    return f"DELETE → 204, GET → 404, DELETE again → 204; history {len(versions)} versions, the newest a tombstone"
