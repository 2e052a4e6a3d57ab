"""The memory console in a real browser (Debian's chromium under Playwright) against the local stack: sign in with
an API key, the views over the existing API routes, tenants apart, stored markup shown as text and never run, and
the threads view's first paint with 1,000 threads (printed, in docs/benchmarks.md; not a timed assertion).

`OFFPROMPT_SCREENSHOTS=<dir>` (`make screenshots`: docs/console) keeps a PNG of every view there; without it they
go to a temporary directory, so the screenshot run is the same test `make test` runs."""

from __future__ import annotations

import base64
import os
import re
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from browser_support import WATCH_SCRIPT, Stack, chromium, running_stack, sign_in

from offprompt_client import OffpromptClient, OffpromptClientError

pytestmark = pytest.mark.slow

HOSTILE = [
    '<script>window.__pwned = "script"</script>',
    "<img src=x onerror=\"window.__pwned = 'onerror'\">",
    "<a href=\"javascript:window.__pwned='link'\">click me</a>",
]


@pytest.fixture(scope="module")
def stack(opensearch_url: str) -> Iterator[Stack]:
    with running_stack(opensearch_url) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(WATCH_SCRIPT)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert errors == [], errors  # the console's own script never threw


def client(stack: Stack, key: str) -> OffpromptClient:
    return OffpromptClient(stack.url, headers={"Authorization": f"Bearer {key}"}, timeout=120)


def text_run(run_id: str, question: str, answer: str) -> dict[str, Any]:
    def artifact(kind: str, value: str) -> dict[str, Any]:
        return {"type": "TextArtifact", "id": f"{kind}-{run_id}", "reference": None, "meta": {}, "name": kind,
                "value": value}  # fmt: skip

    return {
        "type": "Run",
        "id": run_id,
        "meta": None,
        "input": artifact("i", question),
        "output": artifact("o", answer),
    }


@pytest.fixture(scope="module")
def tenant(stack: Stack) -> dict[str, Any]:
    """A tenant with a key, a thread of runs (the last ones hostile markup), a task memory namespace."""
    name, key = stack.new_tenant("acme")
    api = client(stack, key)
    for i in range(1, 4):
        api.add_run("support-chat", text_run(f"r{i}", f"question {i} about the fox", f"answer {i}"))
    api.add_run("support-chat", text_run("evil-1", HOSTILE[0], HOSTILE[1]))
    url_run = text_run("evil-2", HOSTILE[2], "see the link")
    url_run["output"] = {"type": "UrlArtifact", "id": "u", "reference": None, "meta": {}, "name": "u",
                         "value": "javascript:window.__pwned='url'"}  # fmt: skip
    api.add_run("support-chat", url_run)
    api.add_run("other-thread", text_run("o1", "hello", "world"))
    artifact = {"type": "TextArtifact", "id": "a" * 32, "name": "docs", "meta": {}, "reference": None,
                "value": "The quick brown fox jumps over the lazy dog. " * 20}  # fmt: skip
    api.process_output("TaskMemory", "WebScraper", "get_content", artifact, raw=True)
    return {"tenant": name, "key": key, "api": api}


def screenshot(page: Any, name: str, tmp_path: Path) -> None:
    target = Path(os.environ.get("OFFPROMPT_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target / f"{name}.png"), full_page=True)
    assert (target / f"{name}.png").stat().st_size > 5_000


def test_the_page_and_its_files_carry_a_strict_policy(stack: Stack) -> None:
    status, headers, body = stack.get("/console")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "connect-src 'self'" in policy
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["Cache-Control"] == "no-cache"
    assert b"<script>" not in body and b"style=" not in body  # no inline script or style to allow
    version = re.search(rb"/console/app\.js\?v=(\w+)", body)
    assert version is not None
    status, headers, _ = stack.get("/console/app.js?v=" + version.group(1).decode())
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert stack.get("/console/../template.yaml")[0] == 404 and stack.get("/console/index.html")[0] == 404


def test_a_tenant_reads_its_threads_runs_prompt_memory_and_usage(
    stack: Stack, tenant: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    sign_in(page, stack.url, tenant["key"])
    page.wait_for_selector("#threads tbody tr")
    assert page.locator("#threads tbody tr").count() == 2
    assert page.locator("#threads tbody tr").first.inner_text().startswith("other-thread")  # newest first
    screenshot(page, "threads", tmp_path)

    page.get_by_role("link", name="support-chat").click()
    page.wait_for_selector("article.run")
    assert page.locator("article.run").count() == 5
    assert page.locator("article.run").first.locator("h4").inner_text().startswith("#5")  # newest first
    meta = page.locator("#thread-meta").inner_text()
    assert "Stored runs\n5" in meta and "[object" not in meta  # the settings' pairs are elements, not their names
    screenshot(page, "thread", tmp_path)

    page.get_by_role("link", name="Prompt preview").click()
    page.get_by_label("Thread id").fill("support-chat")
    page.get_by_label("Input").fill("And now?")
    page.get_by_label("Budget (max tokens)").fill("2000")
    page.get_by_role("button", name="Preview prompt").click()
    page.wait_for_selector("#prompt-summary")
    assert page.locator(".messages > li").count() == 11  # 5 runs (2 messages each) + the input
    assert page.locator("#prompt-summary").inner_text().count("Runs kept") == 1
    assert "null" not in page.locator("#prompt-result").inner_text().split("Messages")[0]
    screenshot(page, "prompt", tmp_path)
    page.get_by_label("Budget (max tokens)").fill("1")
    page.get_by_role("button", name="Preview prompt").click()
    page.wait_for_selector("#over-budget")  # the input alone is over a budget of 1

    page.get_by_role("link", name="Task memory").click()
    # the namespace's row names the tool activity that stored it, its storage, count and size (friction 10)
    row = page.locator("#namespaces li").filter(has=page.get_by_role("button", name="docs"))
    assert row.inner_text() == "docs WebScraper.get_content · text · 1 artifact · 900 B"
    page.get_by_role("button", name="docs").click()
    page.get_by_label("Search").fill("brown fox")
    page.get_by_label("Mode").select_option("bm25")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_selector("#hits li .badge", timeout=30_000)
    assert "brown fox" in page.locator("#hits").inner_text()
    assert "quick brown fox" in page.locator("#artifacts").inner_text()
    screenshot(page, "memory", tmp_path)

    page.get_by_role("link", name="Usage").click()
    page.wait_for_selector("#usage-chart svg rect.bar", state="attached")
    page.get_by_label("Series").select_option("runs_added")
    today = page.locator("#usage-chart svg rect.bar").last  # 6 runs added today, against the plan's limit
    assert float(today.get_attribute("height") or 0) > 0 and "6" in (today.text_content() or "")
    # the last bar (today) has its date under it (issue 33, friction 10: every other bar counted from the first)
    axis = page.locator("#usage-chart svg text.axis[text-anchor=middle]")
    assert axis.last.text_content() == (today.text_content() or "")[5:10]
    assert "the plan's limit: 100000 a day" in page.locator("#usage-caption").inner_text()  # the pro plan's
    assert "runs_added" not in page.locator("#usage-table").inner_text()
    assert "POST /threads/{thread_id}/runs\t6" in page.locator("#usage-routes").inner_text()
    screenshot(page, "usage", tmp_path)

    # every call went to this origin's API; the key never in a URL
    assert all(u.startswith(stack.url) for u in requests)
    assert not [u for u in requests if tenant["key"] in urllib.parse.unquote(u)]


def test_stored_markup_is_shown_as_text_and_never_runs(stack: Stack, tenant: dict[str, Any], page: Any) -> None:
    sign_in(page, stack.url, tenant["key"])
    page.goto(stack.url + "/console#/threads/support-chat")
    page.wait_for_selector("article.run")
    shown = page.locator("#runs").inner_text()
    for markup in HOSTILE:
        assert markup in shown  # the characters, as text
    assert "javascript:window.__pwned='url'" in shown
    assert page.locator("#runs a[href^='javascript']").count() == 0 and page.locator("#runs img").count() == 0
    assert page.locator("#runs script").count() == 0
    page.get_by_text("javascript:window.__pwned='url'").click()  # shown, not a link: clicking runs nothing
    assert page.evaluate("window.__pwned") is None
    assert page.evaluate("window.__cspViolations") == []  # nothing even tried to run


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
SVG = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=1"/>').decode()


def test_images_render_inline_and_svg_never(stack: Stack, page: Any) -> None:
    def image(fmt: str, value: str) -> dict[str, Any]:
        return {"type": "ImageArtifact", "id": f"img-{fmt}", "reference": None, "meta": {}, "name": f"pic.{fmt}",
                "value": value, "format": fmt, "width": 1, "height": 1}  # fmt: skip

    run = text_run("img-1", "draw", "")
    run["input"], run["output"] = image("svg+xml", SVG), image("png", PIXEL)
    _, key = stack.new_tenant("pics")
    client(stack, key).add_run("pictures", run)
    sign_in(page, stack.url, key)
    page.goto(stack.url + "/console#/threads/pictures")
    page.wait_for_selector("#runs img.media")
    assert page.locator("#runs img").count() == 1  # the PNG, from a blob: URL the script made
    assert (page.locator("#runs img").get_attribute("src") or "").startswith("blob:")
    assert page.evaluate("document.querySelector('#runs img').naturalWidth") == 1
    assert "image (svg+xml) not shown" in page.locator("#runs").inner_text()
    assert page.evaluate("window.__pwned") is None and page.evaluate("window.__cspViolations") == []


def test_keys_are_created_once_and_revoked(stack: Stack, tenant: dict[str, Any], page: Any, tmp_path: Path) -> None:
    sign_in(page, stack.url, tenant["key"])
    page.get_by_role("link", name="Keys").click()
    page.get_by_label("New key's name").fill("ci-robot")
    page.get_by_role("button", name="Create key").click()
    secret = page.get_by_label("The new key").input_value()
    assert secret.startswith("op_")
    page.wait_for_selector("#keys td:has-text('ci-robot')")
    assert client(stack, secret).list_threads()["threads"]  # the new key is the same tenant
    # the picture in docs/ shows where the key appears, not a key (a throwaway stack's, but a scanner cannot tell)
    page.evaluate("document.querySelector('.secret').value = 'op_<key_id>_<secret: shown here once>'")
    screenshot(page, "keys", tmp_path)
    prefix = "_".join(secret.split("_")[:2])
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name=f"Revoke key {prefix}").click()
    page.wait_for_selector(f"#keys td:has-text('{prefix}')", state="detached")
    with pytest.raises(OffpromptClientError, check=lambda e: e.status == 401):
        client(stack, secret).list_threads()
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_selector("#sign-in:not([hidden])")
    assert page.locator("#view").inner_text() == ""  # nothing of the tenant is left on the page


def test_the_keys_view_shows_each_keys_scope_and_expiry_and_creates_a_scoped_key(stack: Stack, page: Any) -> None:
    _, key = stack.new_tenant("scoped")
    api = client(stack, key)
    scoped = {"actions": ["read"], "threads": {"prefix": "u-42-"}, "records": {"namespace_prefix": ["users", "u-42"]}}
    api.request("POST", "/keys", json_body={"name": "user 42", "scopes": scoped, "expires_at": "2027-01-31T00:00:00Z"})
    sign_in(page, stack.url, key)
    page.get_by_role("link", name="Keys").click()
    row = page.locator("#keys tr", has_text="user 42")
    row.wait_for()
    assert "threads u-42-*" in row.inner_text()
    assert "records users.u-42.*" in row.inner_text()
    assert "read only" in row.inner_text()
    assert "2027-01-31 00:00:00Z" in row.inner_text()
    first = page.locator("#keys tbody tr").filter(has_not_text="user 42")
    assert "whole tenant" in first.inner_text() and "never" in first.inner_text()
    # a key for one end user's threads, read only, made here
    page.get_by_label("New key's name").fill("viewer 7")
    page.get_by_label("Only threads starting with").fill("u-7-")
    page.get_by_label("Read only").check()
    page.get_by_role("button", name="Create key").click()
    assert page.get_by_label("The new key").input_value().startswith("op_")
    page.locator("#keys tr", has_text="viewer 7").filter(has_text="threads u-7-*").wait_for()
    made = next(k for k in api.request("GET", "/keys").json()["keys"] if k["name"] == "viewer 7")
    reach = {family: rule for family, rule in made["scopes"].items() if rule is not None}
    assert reach == {"actions": ["read"], "threads": {"prefix": "u-7-"}}


def test_the_audit_view_shows_writes_newest_first_without_their_values(stack: Stack, page: Any, tmp_path: Path) -> None:
    _, key = stack.new_tenant("audited")
    api = client(stack, key)
    for i in range(20):
        api.configure_thread(f"t-{i:02d}", max_runs=10)
    api.put_record(["users", "u-42"], "favourite", {"colour": "SECRET-TEAL-<b>bold</b>"})
    total = len(api.request("GET", "/audit", query={"limit": 200}).json()["entries"])
    assert total >= 21
    sign_in(page, stack.url, key)
    page.get_by_role("link", name="Audit").click()
    page.wait_for_selector("#audit tbody tr")
    first = page.locator("#audit tbody tr").first
    assert "PUT /records/{namespace}/{key}" in first.inner_text()  # the newest entry first
    assert "users.u-42" in first.inner_text() and "favourite" in first.inner_text()
    assert "200" in first.inner_text() and "http" in first.inner_text()
    assert page.locator("#audit tbody tr").count() == 20
    page.get_by_role("button", name="More entries").click()
    page.locator("#audit tbody tr").nth(total - 1).wait_for()
    assert page.locator("#audit tbody tr").count() == total
    assert page.locator("#audit tbody tr").last.inner_text().count("PUT /threads/{thread_id}") == 1
    assert page.get_by_role("button", name="More entries").count() == 0
    assert "SECRET-TEAL" not in page.locator("#view").inner_text()
    assert page.locator("#view b").count() == 0
    screenshot(page, "audit", tmp_path)


def test_another_tenant_sees_none_of_it(stack: Stack, tenant: dict[str, Any], page: Any) -> None:
    _, other_key = stack.new_tenant("globex")
    sign_in(page, stack.url, other_key)
    page.wait_for_selector("#threads-count")
    assert page.locator("#threads tbody tr").count() == 0
    page.goto(stack.url + "/console#/threads/support-chat")
    page.wait_for_selector("#thread-meta .error")
    assert "404" in page.locator("#thread-meta").inner_text()
    page.get_by_role("link", name="Task memory").click()
    page.wait_for_selector("#namespaces :text('No namespaces.')")
    assert client(stack, other_key).list_threads() == {"threads": [], "next_cursor": None}


def test_a_refused_key_does_not_sign_in(stack: Stack, page: Any) -> None:
    """By keyboard alone: the field has the focus on load, Enter submits."""
    page.goto(stack.url + "/console")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'credential'")
    page.keyboard.type("op_0123456789abcdef_" + "A" * 43)
    page.keyboard.press("Enter")
    page.wait_for_selector("#sign-in-error:has-text('refused')")
    assert page.locator("#nav").is_hidden()


def test_first_paint_of_the_threads_view_with_1000_threads(stack: Stack, page: Any) -> None:
    """Signed in as a local tenant (the header the local stack trusts): no plan's rate limit on the 1,000 writes."""
    busy = f"busy-{uuid.uuid4().hex[:8]}"
    api = OffpromptClient(stack.url, tenant=busy, timeout=120)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda i: api.configure_thread(f"t-{i:04d}", max_runs=10), range(1000)))
    started = time.perf_counter()
    assert len(api.list_threads(limit=20)["threads"]) == 20
    listing_ms = (time.perf_counter() - started) * 1000
    sign_in(page, stack.url, busy, mode="tenant")
    page.wait_for_selector("#threads tbody tr")
    page.wait_for_function("performance.getEntriesByName('console:threads-painted').length > 0")
    took = page.evaluate(
        "performance.getEntriesByName('console:threads-painted')[0].startTime"
        " - performance.getEntriesByName('console:sign-in')[0].startTime"
    )
    assert page.locator("#threads tbody tr").count() == 20  # one page, never the whole tenant
    print(f"\nconsole: threads view first paint with 1,000 threads: {took:.0f} ms (sign-in to painted);")
    print(f"console: GET /threads?limit=20 alone (the client, same stack): {listing_ms:.0f} ms")


#: The placeholders of the visible inputs that their box cuts off (text wider than the box's content width).
CUT_OFF_PLACEHOLDERS = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  return [...document.querySelectorAll("input[placeholder]")].filter((input) => input.offsetParent !== null)
    .filter((input) => {
      const style = getComputedStyle(input);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return canvas.measureText(input.placeholder).width > room;
    }).map((input) => input.placeholder);
}"""


def test_a_record_shows_with_its_history_and_is_deleted(
    stack: Stack, tenant: dict[str, Any], page: Any, tmp_path: Path
) -> None:
    api = tenant["api"]
    api.put_record(["users", "alice"], "prefs", {"theme": "dark", "about": "likes the quick brown fox"})
    api.put_record(["users", "alice"], "prefs", {"theme": "light", "about": "likes the quick brown fox"})
    api.put_record(["users", "bob"], "prefs", {"theme": "dark"})
    sign_in(page, stack.url, tenant["key"])
    page.get_by_role("link", name="Records").click()
    page.get_by_label("Namespaces starting with").wait_for()
    assert page.evaluate(CUT_OFF_PLACEHOLDERS) == []  # each placeholder readable whole (friction 10)
    # the search form's labels on one line, its inputs and select one height (friction 10: misaligned columns)
    form = page.get_by_role("search", name="Search records")
    labels = [box["y"] for box in (label.bounding_box() for label in form.locator("label").all()) if box]
    boxes = [box["height"] for box in (c.bounding_box() for c in form.locator("input, select").all()) if box]
    assert len(labels) == len(boxes) == 3 and max(labels) - min(labels) < 1 and max(boxes) - min(boxes) < 1
    page.get_by_label("Namespaces starting with").fill("users")
    page.get_by_role("button", name="List namespaces").click()
    page.wait_for_selector("#record-namespaces button:has-text('users.bob')")
    page.get_by_role("button", name="users.alice", exact=True).click()
    page.wait_for_selector("#record-hits button")
    assert page.locator("#record-hits li").count() == 1  # alice's namespace only, not bob's
    page.get_by_label("Text").fill("brown fox")
    page.get_by_role("button", name="Search records").click()
    page.wait_for_selector("#record-hits :text('score')", timeout=30_000)
    page.get_by_role("button", name="users.alice / prefs").click()
    page.wait_for_selector("#record-history tbody tr")
    assert '"theme": "light"' in page.locator("#record-current").inner_text()
    history = page.locator("#record-history tbody tr")
    assert history.count() == 2  # newest first: the replace closed the first version's validity window
    assert history.first.inner_text().startswith("2") and "current" in history.first.inner_text()
    assert '"theme": "dark"' in history.last.inner_text() and "current" not in history.last.inner_text()
    screenshot(page, "records", tmp_path)

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete record prefs").click()
    page.wait_for_selector("#record-current :text('No current version')")
    page.wait_for_selector("#record-history tr.deleted .badge:has-text('deleted')")
    assert page.locator("#record-history tbody tr").count() == 3
    with pytest.raises(OffpromptClientError, check=lambda e: e.status == 404):
        api.get_record(["users", "alice"], "prefs")

    for i in range(21):  # one more than a page of 20
        api.put_record(["bulk"], f"k{i:02d}", {"n": i})
    page.get_by_label("Search under namespace").fill("bulk")
    page.get_by_label("Text").fill("")
    page.get_by_role("button", name="Search records").click()
    page.wait_for_selector("#record-hits li >> nth=19")
    page.get_by_role("button", name="More records").click()
    page.wait_for_selector("#record-hits li >> nth=20")
    shown = page.locator("#record-hits button").all_inner_texts()
    assert sorted(shown) == [f"bulk / k{i:02d}" for i in range(21)]  # each once, across the two pages
    assert page.get_by_role("button", name="More records").count() == 0


def test_markup_in_a_record_is_shown_as_text_and_never_runs(stack: Stack, page: Any) -> None:
    _, key = stack.new_tenant("recs")
    client(stack, key).put_record(["notes"], "evil", {"html": HOSTILE[0], "more": HOSTILE[1:]})
    sign_in(page, stack.url, key)
    page.goto(stack.url + "/console#/records")
    page.get_by_role("button", name="notes", exact=True).click()
    page.get_by_role("button", name="notes / evil").click()
    page.wait_for_selector("#record-history tbody tr")
    shown = page.locator("#record").inner_text()
    assert "window.__pwned" in shown and "<script>" in shown  # the characters, as text (JSON-escaped quotes)
    assert page.locator("#record script, #record img, #record a").count() == 0
    assert page.evaluate("window.__pwned") is None and page.evaluate("window.__cspViolations") == []


def test_a_framework_session_thread_shows_its_items_newest_first(stack: Stack, page: Any, tmp_path: Path) -> None:
    _, key = stack.new_tenant("agents")
    items: list[dict[str, Any]] = [{"role": "user", "content": f"question {i}"} for i in range(1, 25)]
    items.append({"type": "function_call", "name": "lookup", "arguments": '{"q": "<b>fox</b>"}', "call_id": "c1"})
    client(stack, key).add_items("session-1", items)
    sign_in(page, stack.url, key)
    page.wait_for_selector("#threads tbody tr")
    page.get_by_role("link", name="session-1").click()
    page.wait_for_selector("#items article.item")
    cards = page.locator("#items article.item")
    assert cards.count() == 20  # one page
    assert cards.first.locator("h4").inner_text() == "#25 function_call"  # newest first, its JSON as text
    assert '"arguments": "{\\"q\\": \\"<b>fox</b>\\"}"' in cards.first.inner_text()
    assert cards.nth(1).inner_text().startswith("#24 user\nquestion 24")
    assert "Runs (newest first)" not in page.locator("#view").inner_text()
    assert "Stored items\n25" in page.locator("#thread-meta").inner_text()
    page.get_by_role("button", name="Older items").click()
    page.wait_for_selector("#items article.item >> nth=24")
    assert cards.count() == 25 and cards.last.inner_text().startswith("#1 user\nquestion 1")
    assert page.get_by_role("button", name="Older items").count() == 0
    assert page.locator("#items b").count() == 0
    # issue 33 friction 8: an items thread's settings offer only what items do (max_runs and summary were a no-op)
    settings = page.get_by_role("form", name="Thread settings")
    assert settings.locator("[name=max_runs]").count() == 0 and settings.locator("[name=memory_type]").count() == 0
    settings.locator("[name=retention_days]").fill("7")
    settings.get_by_role("button", name="Save settings").click()
    page.wait_for_selector("form.settings [role=status]:has-text('Saved.')")
    assert client(stack, key).get_thread("session-1")["retention_days"] == 7
    screenshot(page, "items", tmp_path)


def test_a_fork_shows_what_it_was_forked_from_and_the_runs_it_shares(stack: Stack, page: Any) -> None:
    """ADR 0037: a fork's runs include its parent's up to the fork point (read in place), and its details say so."""
    _, key = stack.new_tenant("forker")
    api = client(stack, key)
    for i in (1, 2, 3):
        api.add_run("parent", text_run(f"run-{i}", f"question {i}", f"answer {i}"))
    api.fork_thread("parent", after_run_id="run-2", new_thread_id="child")
    api.add_run("child", text_run("run-9", "question 9", "answer 9"))
    sign_in(page, stack.url, key)
    page.wait_for_selector("#threads tbody tr")
    page.get_by_role("link", name="child", exact=True).click()
    page.wait_for_selector("#thread-meta")
    assert "Forked from\nparent after #2" in page.locator("#thread-meta").inner_text()
    page.wait_for_selector("text=question 9")
    view = page.locator("#view").inner_text()
    assert "question 2" in view and "question 1" in view and "question 3" not in view
    page.get_by_role("link", name="Threads", exact=True).click()
    page.wait_for_selector("#threads tbody tr")
    page.get_by_role("link", name="parent", exact=True).click()
    page.wait_for_selector("#thread-meta")
    assert "Live forks\n1" in page.locator("#thread-meta").inner_text()


def test_the_threads_view_searches_conversations(stack: Stack, page: Any, tmp_path: Path) -> None:
    """The search box on the threads view (POST /threads/search, docs/adr/0049): hits under the filter's prefix in
    the API's order, stored markup shown as text, each linking to its thread; a fork searched alone finds the run it
    shares (answered in the fork)."""
    _, key = stack.new_tenant("searcher")
    api = client(stack, key)
    api.add_run("u1-s1", text_run("r1", "I am flying to Kyoto in April", "Cherry blossoms then"))
    api.add_run("u1-s1", text_run("r2", "my cat is Mochi", "Nice"))
    api.add_run("u1-s2", text_run("r3", f"Kyoto temples? {HOSTILE[0]}", HOSTILE[1]))
    api.add_run("u2-s1", text_run("r4", "Kyoto is lovely", "yes"))
    api.fork_thread("u1-s1", after_run_id="r1", new_thread_id="u1-fork")
    # the page answers what the API answers once the index caught up (consistency "search")
    expected = api.search_threads("Kyoto", thread_prefix="u1-", consistency="search", limit=20)
    assert expected.get("searchable") is True, expected
    found = [(h["thread_id"], h["run_id"]) for h in expected["hits"]]
    assert {("u1-s1", "r1"), ("u1-s2", "r3")} <= set(found) and all(t.startswith("u1-") for t, _ in found), found
    sign_in(page, stack.url, key)
    page.wait_for_selector("#threads tbody tr")
    page.get_by_label("Filter by id prefix").fill("u1-")
    page.get_by_label("Search conversations").fill("Kyoto")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_selector("#search-hits article.hit")
    cards = page.locator("#search-hits article.hit")
    assert cards.count() == len(found)
    assert [cards.nth(i).locator("h4 a").inner_text() for i in range(len(found))] == [t for t, _ in found]
    assert "u2-s1" not in page.locator("#search-hits").inner_text()
    assert HOSTILE[0] in page.locator("#search-hits").inner_text()  # as text
    assert page.evaluate("window.__pwned") is None
    screenshot(page, "search", tmp_path)
    page.get_by_label("Filter by id prefix").fill("nobody-")  # hybrid search: meaning always finds something
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_selector("#search-hits li.muted")
    assert page.locator("#search-hits").inner_text() == "No turn matches."
    page.get_by_label("Filter by id prefix").fill("u1-fork")
    page.get_by_label("Search conversations").fill("flying to Kyoto")
    page.get_by_role("button", name="Search", exact=True).click()
    page.wait_for_selector("#search-hits article.hit")
    first = page.locator("#search-hits article.hit").first
    assert first.locator("h4").inner_text().startswith("u1-fork #1")
    first.locator("h4 a").click()
    page.wait_for_selector("#thread-meta")
    assert "Forked from\nu1-s1 after #1" in page.locator("#thread-meta").inner_text()


def test_a_thread_shows_its_actor_and_each_extraction_strategys_progress(stack: Stack, page: Any) -> None:
    """Issue 32: the console shows extraction per thread (docs/adr/0051) — the stack's `rules` stand-in extracts a
    fact after one run; the thread view lists the strategy, how far it got and what it wrote."""
    _, key = stack.new_tenant("extracting")
    api = client(stack, key)
    api.put_strategy("facts", "facts", "people/{actor_id}/facts", after_runs=1)
    api.configure_thread("talk", actor_id="ana")
    api.add_run("talk", input="I live in Lisbon.", output="Nice!", id="run-1")
    deadline = time.monotonic() + 60
    while api.thread_extraction("talk")["strategies"]["facts"]["processed_through_seq"] < 1:
        assert time.monotonic() < deadline, api.thread_extraction("talk")
        time.sleep(0.3)
    sign_in(page, stack.url, key)
    page.goto(stack.url + "/console#/threads/talk")
    page.wait_for_selector("#extraction tbody tr")
    row = page.locator("#extraction tbody tr").first.inner_text().split("\t")
    assert row[:5] == ["facts", "#1", "0", "1", "ok"], row
    assert "Actor\nana" in page.locator("#thread-meta").inner_text()


def test_signing_in_sends_no_probe_and_signing_back_in_clears_signed_out(
    stack: Stack, tenant: dict[str, Any], page: Any
) -> None:
    """Issue 33, friction 10: a sign-in sent a deliberate `GET /threads/-` (a red, metered 404) before the first view,
    and "Signed out." stayed in the status line after signing back in."""
    answered: list[tuple[str, int]] = []
    page.on("response", lambda r: answered.append((r.request.method + " " + r.url.split(stack.url, 1)[-1], r.status)))
    sign_in(page, stack.url, tenant["key"])
    page.wait_for_selector("#threads tbody tr")
    api_calls = [(call, code) for call, code in answered if not call.split(" ", 1)[1].startswith("/console")]
    assert api_calls and all(code < 400 for _, code in api_calls), api_calls
    assert not [call for call, _ in api_calls if "/threads/-" in call]
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_selector("#status:has-text('Signed out.')")
    page.locator("#credential").fill(tenant["key"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#threads tbody tr")
    assert "Signed out" not in page.locator("#status").inner_text()


def test_a_tenant_without_a_plan_is_not_shown_as_storing_nothing(stack: Stack, page: Any) -> None:
    """Issue 33, friction 10: a local tenant with data read "0 B stored"; it has no plan, so nothing is metered."""
    OffpromptClient(stack.url, tenant="unmetered", timeout=120).add_run("t1", text_run("r1", "hello", "world"))
    sign_in(page, stack.url, "unmetered", mode="tenant")
    page.get_by_role("link", name="Usage").click()
    page.wait_for_selector("#plan")
    shown = page.locator("#plan").inner_text()
    assert "not metered" in shown and "0 B" not in shown, shown
