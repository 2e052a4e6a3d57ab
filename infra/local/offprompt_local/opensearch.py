"""A real single-node OpenSearch (with the k-NN plugin) for development and tests, built from Maven Central.

`infra/opensearch/pom.xml` resolves OpenSearch core, the modules offprompt needs and the k-NN plugin, and
compiles a small Java launcher (`EmbeddedOpenSearch`). This module builds it on demand (`ensure_built`) and
runs it as a child JVM (`LocalOpenSearch`) that binds 127.0.0.1 only, keeps its data in a throwaway
directory (or, for the local stack, a persistent `home`), and exits on its own when its stdin closes, so a
parent that dies never leaves an orphan JVM.

If `OPENSEARCH_URL` is set, no node is started and that URL is used instead.

CLI::

    python -m offprompt_local.opensearch --build-only   # resolve the jars and compile the launcher
    python -m offprompt_local.opensearch [--port N]     # start, print the URL, run until Ctrl-C/SIGTERM
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any

REPO_ROOT = Path(__file__).resolve().parents[3]
OPENSEARCH_DIR = REPO_ROOT / "infra" / "opensearch"
INDEX_DEFINITION = OPENSEARCH_DIR / "index.json"
TARGET_DIR = OPENSEARCH_DIR / "target"
MAIN_CLASS = "dev.offprompt.opensearch.EmbeddedOpenSearch"

#: Line A runs OpenSearch 2.19 on Java 17; the launcher is compiled with `--release 17`.
JAVA_MAJOR = 17
#: Overrides the automatic JDK choice (must be a Java 17 home for line A).
JAVA_HOME_ENV = "OFFPROMPT_JAVA_HOME"
#: Overrides the maximum heap, e.g. "1g" (the initial heap is half of it).
HEAP_ENV = "OFFPROMPT_OPENSEARCH_HEAP"
DEFAULT_HEAP = "512m"
#: Extra JVM options, appended last (so they win), e.g. "-XX:+UseSerialGC".
JAVA_OPTS_ENV = "OFFPROMPT_OPENSEARCH_JAVA_OPTS"
URL_ENV = "OPENSEARCH_URL"

STARTUP_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 30.0
_STARTED_RE = re.compile(rb"^OPENSEARCH_STARTED (http://\S+)$", re.MULTILINE)
_STAMP = TARGET_DIR / ".offprompt-build"


class OpenSearchError(RuntimeError):
    """The local node could not be built or started."""


def _log(message: str) -> None:
    print(f"[opensearch] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------------- Java


def _java_major(home: Path) -> int | None:
    """The major version from a JDK's `release` file, or None if `home` is not a JDK."""
    try:
        text = (home / "release").read_text()
    except OSError:
        return None
    match = re.search(r'^JAVA_VERSION="(\d+)', text, re.MULTILINE)
    if not match or not (home / "bin" / "java").exists():
        return None
    return int(match.group(1))


def find_java_home() -> Path:
    """A Java 17 home, chosen deliberately rather than whatever `java` is first on PATH."""
    explicit = os.environ.get(JAVA_HOME_ENV)
    if explicit:
        return Path(explicit)
    candidates = [Path(p) for p in filter(None, [os.environ.get("JAVA_HOME")])]
    candidates += sorted(Path("/usr/lib/jvm").glob("*"))
    for home in candidates:
        if _java_major(home) == JAVA_MAJOR:
            return home.resolve()
    seen = ", ".join(f"{h} ({_java_major(h)})" for h in candidates) or "none"
    raise OpenSearchError(f"no Java {JAVA_MAJOR} JDK found (set {JAVA_HOME_ENV}); candidates: {seen}")


# -------------------------------------------------------------------------------------------------- build


def _build_inputs_digest() -> str:
    """Changes whenever the POM or the launcher source changes, so a stale build is rebuilt."""
    digest = hashlib.sha256()
    for path in [OPENSEARCH_DIR / "pom.xml", *sorted((OPENSEARCH_DIR / "src").rglob("*.java"))]:
        digest.update(path.relative_to(OPENSEARCH_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_built() -> bool:
    """True when the launcher, the OpenSearch jars and the k-NN jars are all present and up to date."""
    try:
        return _STAMP.read_text().strip() == _build_inputs_digest()
    except OSError:
        return False


def _run_maven(java_home: Path, *, offline: bool) -> bool:
    mvn = shutil.which("mvn")
    if mvn is None:
        raise OpenSearchError("Maven (`mvn`) is not on PATH; install it (Debian: apt-get install maven)")
    cmd = [mvn, "-B", "-f", str(OPENSEARCH_DIR / "pom.xml"), "package"]
    env = {**os.environ, "JAVA_HOME": str(java_home)}
    # `package`, not `clean package`: the clean plugin would be one more artifact to resolve.
    shutil.rmtree(TARGET_DIR, ignore_errors=True)
    if offline:  # quiet; fails fast when something is missing from ~/.m2
        result = subprocess.run([*cmd, "-o", "-q"], env=env, capture_output=True, check=False)
        return result.returncode == 0
    # Online: stream Maven's log (one line per download) to stderr as progress.
    return subprocess.run(cmd, env=env, stdout=sys.stderr, stderr=sys.stderr, check=False).returncode == 0


def ensure_built(*, force: bool = False) -> None:
    """Resolve the jars and compile the launcher, unless that was already done for the current inputs."""
    if is_built() and not force:
        return
    with _build_lock():
        if is_built() and not force:  # another process built it while we waited
            return
        java_home = find_java_home()
        started = time.monotonic()
        _log(f"building the local OpenSearch into {TARGET_DIR} (JAVA_HOME={java_home})")
        if _run_maven(java_home, offline=True):
            _log(f"built offline from the local Maven repository in {time.monotonic() - started:.1f}s")
        else:
            _log("the local Maven repository lacks something; resolving from Maven Central")
            if not _run_maven(java_home, offline=False):
                raise OpenSearchError(f"the Maven build of {OPENSEARCH_DIR / 'pom.xml'} failed (see above)")
            _log(f"resolved and built in {time.monotonic() - started:.1f}s")
        _STAMP.write_text(_build_inputs_digest() + "\n")


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """Serialises builds across processes (e.g. parallel test runs), since a build first wipes target/."""
    key = hashlib.sha256(str(OPENSEARCH_DIR).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"offprompt-opensearch-build-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def classpath() -> str:
    return os.pathsep.join(str(TARGET_DIR / part) for part in ("classes", "os-lib/*", "knn/*"))


# ---------------------------------------------------------------------------------------------- index


def index_definition(*, dimension: int | None = None) -> dict[str, Any]:
    """The offprompt index (settings + mappings) from `infra/opensearch/index.json`."""
    definition: dict[str, Any] = json.loads(INDEX_DEFINITION.read_text())
    if dimension is not None:
        definition["mappings"]["properties"]["embedding"]["dimension"] = dimension
    return definition


# ----------------------------------------------------------------------------------------------- node


_running: set[LocalOpenSearch] = set()
_hooks_lock = threading.Lock()
_hooks_installed = False


def _stop_all() -> None:
    for node in list(_running):
        node.stop()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM into a normal exit so `finally` blocks and atexit run (the default just dies).
    raise SystemExit(128 + signum)


def _install_exit_hooks() -> None:
    global _hooks_installed
    with _hooks_lock:
        if _hooks_installed:
            return
        _hooks_installed = True
        atexit.register(_stop_all)
        # Only the main thread may set handlers, and an application's own handler is left alone.
        is_main = threading.current_thread() is threading.main_thread()
        if is_main and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_sigterm)


class LocalOpenSearch:
    """A throwaway single-node OpenSearch in a child JVM. Use as a context manager or start()/stop().

    With `OPENSEARCH_URL` set, nothing is started and `start()` returns that URL.
    """

    def __init__(
        self,
        port: int | None = None,
        *,
        heap: str | None = None,
        startup_timeout: float = STARTUP_TIMEOUT_S,
        home: Path | None = None,
    ) -> None:
        self.port = port  # None: the node binds a free port itself (no race) and reports it
        # A persistent home (the local stack's data dir): path.data is `home/data` and survives stop().
        # None: a throwaway temporary home, deleted on stop (and by the JVM itself if we are killed).
        self.persistent_home = home
        self.heap = heap or os.environ.get(HEAP_ENV) or DEFAULT_HEAP
        self.startup_timeout = startup_timeout
        self.url: str | None = None
        self.home: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._log_file: IO[bytes] | None = None

    @property
    def external(self) -> bool:
        """True when `OPENSEARCH_URL` points at an existing cluster, so no node is managed here."""
        return bool(os.environ.get(URL_ENV))

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def log_path(self) -> Path | None:
        return self.home / "node.log" if self.home else None

    def is_running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def returncode(self) -> int | None:
        """The JVM's exit code once it has exited (negative: killed by that signal), else None."""
        return self._process.poll() if self._process is not None else None

    def restart(self) -> str:
        """Start the node again on the port it had (after its JVM died), so the URL handed out stays valid.

        Cleans up what the dead JVM left (as `stop()` does), then `start()`s with the same settings.
        """
        if self.external:
            raise OpenSearchError(f"{URL_ENV} points at an external node; it is not restarted from here")
        port = urllib.parse.urlsplit(self.url).port if self.url else None
        self.stop()
        if port is not None:
            self.port = port
        return self.start()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> str:
        if self.url is not None:
            return self.url
        if self.external:
            self.url = os.environ[URL_ENV].rstrip("/")
            _log(f"{URL_ENV} is set: using {self.url}, not starting a node")
            return self.url
        ensure_built()
        java = find_java_home() / "bin" / "java"
        if self.persistent_home is not None:
            self.persistent_home.mkdir(parents=True, exist_ok=True)
            self.home = self.persistent_home
        else:
            self.home = Path(tempfile.mkdtemp(prefix="offprompt-opensearch-"))
        assert self.log_path is not None
        self._log_file = self.log_path.open("wb")
        started = time.monotonic()
        _log(f"starting OpenSearch (heap {self.heap}, home {self.home})")
        _install_exit_hooks()
        self._process = subprocess.Popen(
            [str(java), *self._jvm_options(), "-cp", classpath(), MAIN_CLASS, str(self.home), str(self.port or 0)],
            stdin=subprocess.PIPE,  # closing it is the JVM's signal to shut down
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            cwd=self.home,
            start_new_session=True,  # a terminal's Ctrl-C reaches us, and we stop the JVM cleanly
        )
        _running.add(self)
        try:
            self.url = self._wait_until_ready(started)
        except BaseException:
            self.stop()
            raise
        _log(f"OpenSearch is up at {self.url} after {time.monotonic() - started:.1f}s (pid {self.pid})")
        return self.url

    def _jvm_options(self) -> list[str]:
        assert self.home is not None
        max_heap = self.heap
        return [
            f"-Xms{_half(max_heap)}",
            f"-Xmx{max_heap}",
            "-XX:+ExitOnOutOfMemoryError",
            # A small test node: the C1 compiler alone halves the CPU time to a yellow cluster, and the serial
            # collector saves ~60 MiB of RSS (see docs/opensearch-local.md).
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-XX:-UsePerfData",
            f"-Djava.io.tmpdir={self.home}",
            "-Djava.awt.headless=true",
            "-Dfile.encoding=UTF-8",
            "-Djava.locale.providers=SPI,COMPAT",  # what the 2.x distribution runs with
            "-Dlog4j2.disable.jmx=true",
            "-Dlog4j.shutdownHookEnabled=false",  # keep logging while the node closes
            f"-Dlog4j2.configurationFile={OPENSEARCH_DIR / 'log4j2.properties'}",
            # A throwaway home goes even if we are SIGKILLed; a persistent one stays.
            f"-Doffprompt.deleteHomeOnExit={'false' if self.persistent_home is not None else 'true'}",
            *os.environ.get(JAVA_OPTS_ENV, "").split(),
        ]

    def _wait_until_ready(self, started: float) -> str:
        assert self._process is not None and self.log_path is not None
        deadline = started + self.startup_timeout
        url: str | None = None
        next_note = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise self._failure(f"the JVM exited with code {self._process.returncode} during startup")
            if url is None:
                match = _STARTED_RE.search(self.log_path.read_bytes())
                url = match.group(1).decode() if match else None
            if url is not None and _cluster_is_yellow(url):
                return url
            if time.monotonic() >= next_note:
                _log(f"still waiting for OpenSearch ({time.monotonic() - started:.0f}s)")
                next_note += 15
            time.sleep(0.2)
        raise self._failure(f"OpenSearch was not yellow within {self.startup_timeout:.0f}s")

    def _failure(self, reason: str) -> OpenSearchError:
        tail = self.log_tail()
        _log(f"{reason}; last lines of {self.log_path}:\n{tail}")
        return OpenSearchError(f"{reason}\n--- node log (tail) ---\n{tail}")

    def log_tail(self, lines: int = 60) -> str:
        if self.log_path is None or not self.log_path.exists():
            return "(no log)"
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        """Close the JVM's stdin (it shuts down by itself), wait, then terminate/kill; remove the home."""
        process, self._process = self._process, None
        _running.discard(self)
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                _log(f"the JVM (pid {process.pid}) did not stop within {STOP_TIMEOUT_S:.0f}s; terminating")
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self.home is not None:
            if self.persistent_home is None:
                shutil.rmtree(self.home, ignore_errors=True)
            self.home = None
        self.url = None


def _half(size: str) -> str:
    """Half of a JVM size such as "1g" or "512m", in megabytes."""
    match = re.fullmatch(r"(\d+)([gGmM])", size)
    if not match:
        raise ValueError(f"heap must look like 512m or 1g, not {size!r}")
    megabytes = int(match.group(1)) * (1024 if match.group(2) in "gG" else 1)
    return f"{max(megabytes // 2, 64)}m"


def _cluster_is_yellow(url: str) -> bool:
    request = f"{url}/_cluster/health?wait_for_status=yellow&timeout=2s"
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            body = json.load(response)
    except (OSError, urllib.error.URLError, ValueError):
        return False
    return body.get("status") in ("yellow", "green")


# ------------------------------------------------------------------------------------------------ CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.opensearch", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=None, help="HTTP port (default: a free one)")
    parser.add_argument("--heap", default=None, help=f"max JVM heap, e.g. 1g (default: {DEFAULT_HEAP})")
    parser.add_argument("--build-only", action="store_true", help="resolve the jars and compile, then exit")
    args = parser.parse_args(argv)
    try:
        if args.build_only:
            ensure_built()
            _log(f"ready: {TARGET_DIR}")
            return 0
        node = LocalOpenSearch(args.port, heap=args.heap)
        if node.external:
            print(node.start(), flush=True)
            return 0
        _install_exit_hooks()  # before starting, so a SIGTERM during startup also stops the JVM
        with node as url:
            print(url, flush=True)
            _log("running; Ctrl-C or SIGTERM stops it")
            while node.is_running():
                time.sleep(0.5)
            _log(f"the JVM exited unexpectedly; last lines of its log:\n{node.log_tail()}")
            return 1
    except KeyboardInterrupt:
        return 130
    except OpenSearchError as error:
        _log(str(error).splitlines()[0])
        return 1


if __name__ == "__main__":
    sys.exit(main())
