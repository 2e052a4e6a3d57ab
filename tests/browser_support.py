"""The console's browser tests (tests/browser): a local stack as the e2e tests start it (tests/e2e/stack_process.py)
and Debian's chromium driven by Playwright (never Playwright's own browser download; docs/adr/0038)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import sys
import tempfile
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from stack_support import local_admin

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("OFFPROMPT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BOOT_TIMEOUT_S = 180


def _stack_process() -> ModuleType:
    """tests/e2e/stack_process.py, the one module (the e2e tests import it by name from their directory)."""
    if "stack_process" in sys.modules:
        return sys.modules["stack_process"]
    spec = importlib.util.spec_from_file_location("stack_process", ROOT / "tests" / "e2e" / "stack_process.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["stack_process"] = module
    spec.loader.exec_module(module)
    return module


class Stack:
    def __init__(self, url: str, data_dir: Path) -> None:
        self.url = url
        self.data_dir = data_dir

    def admin(self, *args: str) -> Any:
        """`python -m offprompt_admin --local ...` against this stack."""
        return local_admin(self.data_dir, *args)

    def new_tenant(self, prefix: str) -> tuple[str, str]:
        """(tenant, its first API key)."""
        tenant = f"{prefix}-{uuid.uuid4().hex[:8]}"
        return tenant, str(self.admin("tenant", "create", tenant, "--plan", "pro")["key"])

    def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url + path)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()


@contextlib.contextmanager
def running_stack(opensearch_url: str) -> Iterator[Stack]:
    """The stack on a free port, a fresh data directory and its own index; stopped (SIGTERM) and removed after."""
    data_dir = Path(tempfile.mkdtemp(prefix="offprompt-browser-"))
    index = f"offprompt-browser-{uuid.uuid4().hex[:12]}"
    process = _stack_process().StackProcess(data_dir, "--fresh", opensearch_url=opensearch_url, index=index)
    try:
        url = process.wait_ready(BOOT_TIMEOUT_S)
        yield Stack(url, data_dir)
    finally:
        if process.process.poll() is None:
            process.stop(timeout=60)
        shutil.rmtree(data_dir, ignore_errors=True)
        with contextlib.suppress(OSError):
            urllib.request.urlopen(urllib.request.Request(f"{opensearch_url}/{index}", method="DELETE"), timeout=30)


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Headless Debian chromium under Playwright (`make install` installs it)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make install` installs Debian's chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


#: Installed before any script of the page: counts CSP violations and reports whether stored markup ever ran.
WATCH_SCRIPT = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective));
"""


def sign_in(page: Any, url: str, credential: str, *, mode: str = "key") -> None:
    page.goto(url + "/console")
    if mode == "tenant":
        page.get_by_label("Local tenant (the local stack only)").check()
    page.locator("#credential").fill(credential)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#nav:not([hidden])")
