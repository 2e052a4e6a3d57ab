"""How the smoke runs: checks in order, each timed, each held / failed / skipped with a reason; the cleanup of
everything they created; the table.

A check is a function of the `Smoke` context that returns a one-line detail (what it saw) or raises: `CheckFailed`
(an expectation did not hold), `OffpromptClientError` (an answer it did not expect), anything else (reported with
its type). Every name a check creates starts with the run's prefix (`smoke-<12 hex>-`) and is registered with
`Cleanup` before or as it is created, so the cleanup row can delete it whatever happened in between.
"""

from __future__ import annotations

import contextlib
import time
import urllib.parse
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from offprompt_client import OffpromptClientError, OffpromptConnectionError

from .smoke_client import ROUTES, SmokeClient

HELD, FAILED, SKIPPED = "held", "failed", "skipped"

#: Why a check was skipped: the documented reasons (README "Check a deployment", docs/deploy.md).
NEEDS_KEY = "needs KEY=op_… (an API key): usage and keys are the API-key tenant's"
QUICK = "--quick: skips the > 5 MB transfers"
NEEDS_EXPORT = "needs --with-export (an export counts against the plan's scans_per_day)"
NEEDS_ERASE = "needs --erase-tenant (deletes ALL of the tenant's data, and with KEY its keys)"
NOT_SELECTED = "not selected (--only)"
UNREACHABLE = "not run: reach failed"
SKIP_REASONS = (NEEDS_KEY, QUICK, NEEDS_EXPORT, NEEDS_ERASE, NOT_SELECTED, UNREACHABLE)


class CheckFailed(Exception):
    """An expectation of a check did not hold (the message says what was seen)."""


def expect(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def refused(call: Callable[[], Any], status: int, code: str | None = None) -> OffpromptClientError:
    """The error `call` must answer with (`status` and, if given, `code`); CheckFailed on anything else."""
    try:
        answer = call()
    except OffpromptConnectionError:
        raise
    except OffpromptClientError as error:
        wanted = f"{status} {code}" if code else str(status)
        expect(error.status == status and (code is None or error.code == code), f"wanted {wanted}, got {error}")
        return error
    raise CheckFailed(f"wanted a {status} {code or ''}, got a success: {str(answer)[:200]}")


def quoted(value: str) -> str:
    return urllib.parse.quote(value, safe="")


@dataclass(frozen=True)
class Options:
    base_url: str
    key: str | None = None
    tenant: str = "local"
    quick: bool = False
    with_export: bool = False
    erase_tenant: bool = False
    search_wait: float = 90.0
    timeout: float = 120.0
    only: tuple[str, ...] = ()


#: What `Check.needs` may name: the condition under which a check runs, and the reason it is skipped otherwise.
NEEDS: dict[str, tuple[Callable[[Options], bool], str]] = {
    "key": (lambda o: (o.key or "").startswith("op_"), NEEDS_KEY),
    "full": (lambda o: not o.quick, QUICK),
    "export": (lambda o: o.with_export, NEEDS_EXPORT),
    "erase": (lambda o: o.erase_tenant, NEEDS_ERASE),
}


@dataclass(frozen=True)
class Check:
    name: str
    summary: str
    run: Callable[[Smoke], str]
    needs: tuple[str, ...] = ()
    always: bool = False  # runs whatever --only selects (reach, cleanup)


@dataclass
class Result:
    name: str
    status: str
    ms: int
    detail: str


@dataclass
class Cleanup:
    """Everything the checks created, deleted at the end (and what could not be, reported)."""

    threads: list[str] = field(default_factory=list)
    cloud_threads: list[str] = field(default_factory=list)
    memories: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    records: list[tuple[list[str], str]] = field(default_factory=list)  # (namespace, key)
    record_namespaces: list[list[str]] = field(default_factory=list)  # namespaces given a default TTL
    notes: list[str] = field(default_factory=list)  # what stays by design (no route deletes it)

    def run(self, smoke: Smoke) -> str:
        api = smoke.api
        left: list[str] = []
        deleted = 0

        def attempt(what: str, call: Callable[[], Any]) -> bool:
            try:
                call()
                return True
            except OffpromptClientError as error:
                left.append(f"{what} ({error.status} {error.code})")
                return False

        for thread in dict.fromkeys(self.cloud_threads):
            if attempt(f"/api/threads/{thread}", partial(api.request, "DELETE", f"/api/threads/{quoted(thread)}")):
                deleted += 1
        for thread in dict.fromkeys(self.threads):
            if attempt(f"thread {thread}", partial(api.delete_thread, thread)):
                deleted += 1
        entries = namespaces_deleted = 0
        for memory in dict.fromkeys(self.memories):
            for namespace in namespaces_of(api, memory, left) or []:
                if attempt(f"{memory}/{namespace}", partial(api.delete_namespace, memory, namespace)):
                    deleted += 1
                    namespaces_deleted += 1
            with contextlib.suppress(OffpromptClientError):  # a count for the note only
                entries += sum(1 for _ in api.iter_meta(memory))
        for key_id in dict.fromkeys(self.keys):
            if attempt(f"key {key_id}", partial(api.request, "DELETE", f"/keys/{quoted(key_id)}")):
                deleted += 1
        records = self._records()
        for labels, key in records:
            if attempt(f"record {'.'.join(labels)}/{key}", partial(api.delete_record, labels, key)):
                deleted += 1
        for labels in {tuple(n): n for n in self.record_namespaces}.values():
            what = f"record namespace {'.'.join(labels)}"
            attempt(what, partial(api.configure_record_namespace, labels, default_ttl_minutes=None))
        left += self._verify(smoke)
        expect(not left, "could not clean: " + "; ".join(left))
        stays = [*self.notes]
        if entries:
            stays.append(f"{entries} meta entries (no route deletes them; DELETE /tenant does)")
        if namespaces_deleted:
            stays.append("the position counter of each deleted namespace (kept by design, not visible over the API)")
        if records:
            stays.append(
                "each deleted record's history (past versions, tombstone, their search documents: what as_of reads; "
                "they expire with the records' TTL, DELETE /tenant erases them now)"
            )
        return f"{deleted} threads, namespaces, records and keys deleted (or already gone), read back as gone" + (
            "; left by design: " + "; ".join(stays) if stays else ""
        )

    def _records(self) -> list[tuple[list[str], str]]:
        return list({(tuple(n), k): (n, k) for n, k in self.records}.values())

    def _verify(self, smoke: Smoke) -> list[str]:
        """What is still there after the deletes (threads, namespaces, records, keys): read back, never assumed."""
        api, left = smoke.api, []
        for thread in dict.fromkeys([*self.threads, *self.cloud_threads]):
            try:
                api.get_thread(thread)
                left.append(f"thread {thread} still exists")
            except OffpromptClientError as error:
                if error.status != 404:
                    left.append(f"thread {thread} ({error.status} {error.code})")
        for memory in dict.fromkeys(self.memories):
            left += [f"namespace {memory}/{n} still exists" for n in namespaces_of(api, memory, left) or []]
        for labels, key in self._records():
            try:
                api.get_record(labels, key, refresh_ttl=False)
                left.append(f"record {'.'.join(labels)}/{key} still exists")
            except OffpromptClientError as error:
                if error.status != 404:
                    left.append(f"record {'.'.join(labels)}/{key} ({error.status} {error.code})")
        if self.records:
            try:
                listed = api.list_record_namespaces(prefix=[smoke.prefix])["namespaces"]
                left += [f"record namespace {'.'.join(n)} still holds records" for n in listed]
            except OffpromptClientError as error:
                left.append(f"POST /records/namespaces ({error.status} {error.code})")
        if self.keys:
            try:
                listed = {k["key_id"] for k in api.request("GET", "/keys").json()["keys"]}
                left += [f"key {k} still listed" for k in dict.fromkeys(self.keys) if k in listed]
            except OffpromptClientError as error:
                left.append(f"GET /keys ({error.status} {error.code})")
        return left


def namespaces_of(api: SmokeClient, memory: str, left: list[str]) -> list[str] | None:
    """The namespaces a memory holds (None, and a line in `left`, when they cannot be listed)."""
    try:
        return [n["namespace"] for n in api.iter_namespaces(memory)]
    except OffpromptClientError as error:
        left.append(f"memory {memory} ({error.status} {error.code})")
        return None


@dataclass
class Smoke:
    """One run's context: the options, the client, the prefix of every name it creates, the cleanup list."""

    options: Options
    api: SmokeClient
    prefix: str = field(default_factory=lambda: f"smoke-{uuid.uuid4().hex[:12]}")
    cleanup: Cleanup = field(default_factory=Cleanup)
    state: dict[str, Any] = field(default_factory=dict)

    def name(self, part: str) -> str:
        return f"{self.prefix}-{part}"

    def thread(self, part: str) -> str:
        """A new thread id under the prefix, deleted at the end."""
        thread = self.name(part)
        self.cleanup.threads.append(thread)
        return thread

    def memory(self, part: str) -> str:
        """A new memory name under the prefix: every namespace in it is deleted at the end."""
        memory = self.name(part)
        self.cleanup.memories.append(memory)
        return memory

    def client(self, **headers: str) -> SmokeClient:
        """Another client on the same API and credentials (a driver or a second key uses its own)."""
        return make_client(self.options, headers)


def make_client(options: Options, extra_headers: dict[str, str] | None = None) -> SmokeClient:
    """The client a run uses: `Authorization: Bearer <key>` with a key, the local header tenant without one."""
    headers = {"Authorization": f"Bearer {options.key}"} if options.key else {}
    headers.update(extra_headers or {})
    tenant = None if options.key else options.tenant
    return SmokeClient(options.base_url, tenant=tenant, headers=headers, timeout=options.timeout)


def skip_reason(check: Check, options: Options, reached: bool) -> str | None:
    if not reached:
        return UNREACHABLE
    if options.only and not check.always and not selected(check.name, options.only):
        return NOT_SELECTED
    for need in check.needs:
        holds, reason = NEEDS[need]
        if not holds(options):
            return reason
    return None


def selected(name: str, only: Sequence[str]) -> bool:
    """`--only` names checks or their groups (`task-memory` selects `task-memory.*`)."""
    return any(name == item or name.startswith(item.rstrip(".") + ".") for item in only)


def describe(error: BaseException, api: SmokeClient) -> str:
    if isinstance(error, CheckFailed):
        return str(error)
    if isinstance(error, OffpromptConnectionError):
        return f"cannot reach the API: {error.message}"
    if isinstance(error, OffpromptClientError):
        return f"{api.last} answered {error.status} {error.code}: {error.message[:300]}"
    return f"{type(error).__name__}: {error}"


def run_checks(checks: Sequence[Check], smoke: Smoke, on_result: Callable[[Result], None]) -> list[Result]:
    """Every check in order; a failed `reach` skips the rest. Each result is handed to `on_result` as it comes."""
    results: list[Result] = []
    reached = True
    for check in checks:
        reason = skip_reason(check, smoke.options, reached)
        if reason is not None:
            result = Result(check.name, SKIPPED, 0, reason)
        else:
            started = time.perf_counter()
            try:
                status, detail = HELD, check.run(smoke)
            except Exception as error:
                status, detail = FAILED, describe(error, smoke.api)
            result = Result(check.name, status, round((time.perf_counter() - started) * 1000), detail)
            if check.name == "reach" and status == FAILED:
                reached = False
        results.append(result)
        on_result(result)
    return results


def key_id(key: str) -> str:
    """`op_<key_id>` of a key `op_<key_id>_<secret>` (the secret may hold "_" too)."""
    return "_".join(key.split("_")[:2])


def header(smoke: Smoke, griptape_version: str) -> str:
    options = smoke.options
    if options.key and options.key.startswith("op_"):
        who = f"key {key_id(options.key)}_… (the secret is never printed)"
    elif options.key:
        who = "a bearer token (not an API key: usage and keys are skipped)"
    else:
        who = f'header tenant "{options.tenant}" ({"X-Offprompt-Tenant"}, make dev only)'
    return f"offprompt smoke: {options.base_url} · {who} · prefix {smoke.prefix} · griptape {griptape_version}"


NAME_WIDTH = 34
DETAIL_WIDTH = 400


def row(result: Result) -> str:
    detail = result.detail if len(result.detail) <= DETAIL_WIDTH else result.detail[: DETAIL_WIDTH - 1] + "…"
    ms = str(result.ms) if result.status != SKIPPED else "-"
    return f"{result.name:<{NAME_WIDTH}} {result.status:<7} {ms:>6}  {detail}"


def table_head() -> str:
    return f"{'check':<{NAME_WIDTH}} {'result':<7} {'ms':>6}  detail\n{'-' * NAME_WIDTH} {'-' * 7} {'-' * 6}  {'-' * 6}"


def summary(results: Sequence[Result], smoke: Smoke, seconds: float) -> str:
    counts = {status: sum(1 for r in results if r.status == status) for status in (HELD, FAILED, SKIPPED)}
    reached = smoke.api.routes_reached()
    missing = [route for route in ROUTES if route not in reached]
    routes = f"routes exercised: {len(ROUTES) - len(missing)} of {len(ROUTES)}"
    if missing:
        routes += " (not: " + ", ".join(missing) + ")"
    return (
        f"{counts[HELD]} held, {counts[FAILED]} failed, {counts[SKIPPED]} skipped in {seconds:.1f} s · {routes} · "
        f"{smoke.api.rate_limited} rate-limit retries"
    )
