"""The TypeScript client (`clients/typescript`, `@offprompt/client`) and its doors, from `make test` (docs/adr/0052):
`tsc --strict` builds it, its unit tests run on node's test runner (a scripted fetch), its e2e tests and LangGraph.js's
checkpointer validation suite run against this module's local stack (booted once), and the packed tarball is
installed into empty directories, each with only one framework beside it, where the README's TypeScript examples
are compiled with `tsc --strict` against the packed declarations and run, their output checked against the
`// ...` comments of their `console.log` lines. `make install` installs the Node dependencies (`npm ci`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from test_local_stack import ROOT, RunningStack, stack  # noqa: F401  (stack: the module's local stack fixture)

pytestmark = pytest.mark.slow

TS = ROOT / "clients" / "typescript"
BIN = TS / "node_modules" / ".bin"
#: The one test of LangGraph.js's validation suite the saver does not pass, by design: it asks a saver to store
#: only the channels `newVersions` names and to answer the others empty (the SQL savers' per-channel blobs).
#: LangGraph.js excuses MemorySaver, SQLiteSaver and MongoDBSaver from it; OffpromptSaver stores the channel values
#: whole, as they do and as the Python saver does (ADR 0039, ADR 0052).
EXCUSED = {
    "OffpromptSaver OffpromptSaver#put should only store channel_values that have changed (based on newVersions)"
}
#: Each README example, the directory it runs in: the tarball and only these packages beside it.
DOORS = {
    "@offprompt/client": [],
    "@offprompt/client/ai": ["ai"],
    "@offprompt/client/langgraph": ["@langchain/langgraph", "@langchain/core"],
    "@offprompt/client/openai-agents": ["@openai/agents"],
}


def npm_ready() -> None:
    if not (TS / "node_modules" / "typescript").is_dir():
        pytest.fail("clients/typescript has no node_modules: run make install (npm ci from its lockfile)")


def run(*command: str | Path, cwd: Path = TS, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(map(str, command))}:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
    return done.stdout


def ts_files(tier: str) -> list[str]:
    return sorted(str(p.relative_to(TS)) for p in (TS / "test" / tier).glob("*.test.ts"))


def stack_env(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFPROMPT_")}
    return {**env, "OFFPROMPT_API_URL": url}


def test_it_type_checks_strict_and_its_unit_tests_pass() -> None:
    npm_ready()
    run(BIN / "tsc", "-p", "tsconfig.test.json")  # the sources and the tests, strict (the build is the pack test's)
    out = run("node", "--import", "tsx", "--test", "--test-concurrency=4", *ts_files("unit"))
    assert re.search(r"^# fail 0$", out, re.M) and not re.search(r"^# pass 0$", out, re.M), out[-3000:]


def test_e2e_and_langgraphs_validation_suite_pass_against_the_local_stack(stack: RunningStack, tmp_path: Path) -> None:  # noqa: F811
    npm_ready()
    env = stack_env(stack.url)
    report = tmp_path / "validation.json"
    validation = subprocess.Popen(
        [BIN / "vitest", "run", "--reporter=json", f"--outputFile={report}"],
        cwd=TS,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out = run("node", "--import", "tsx", "--test", "--test-concurrency=4", *ts_files("e2e"), env=env)
        assert re.search(r"^# fail 0$", out, re.M) and not re.search(r"^# pass 0$", out, re.M), out[-3000:]
        output, _ = validation.communicate(timeout=600)
    finally:
        validation.kill()
    results = json.loads(report.read_text(encoding="utf-8"))
    outcomes = [(a["fullName"], a["status"]) for f in results["testResults"] for a in f["assertionResults"]]
    failed = {name for name, status in outcomes if status != "passed"}
    assert failed == EXCUSED, output[-4000:]
    assert len(outcomes) > 700 and results["numFailedTests"] == 1, (len(outcomes), results["numFailedTests"])


# ---- the packed tarball, as a user installs it ------------------------------------------------------------------
def readme_examples() -> dict[str, str]:
    """The TypeScript examples of docs/typescript.md (linked from the README) by the entry point each imports."""
    section = (ROOT / "docs" / "typescript.md").read_text(encoding="utf-8")
    examples: dict[str, str] = {}
    for block in re.findall(r"```ts\n(.*?)\n```", section, re.S):
        entry = re.search(r'from "(@offprompt/client[^"]*)"', block)
        assert entry, block
        examples[entry.group(1)] = block + "\n"
    return examples


def expected_output(example: str) -> list[str]:
    """What the example prints: the `// ...` comment of each `console.log(...)` line, in order."""
    return [m.group(1) for m in re.finditer(r"console\.log\(.*\);\s*// (.*)$", example, re.M)]


def locked_version(name: str) -> str:
    lock = json.loads((TS / "package-lock.json").read_text(encoding="utf-8"))
    return str(lock["packages"][f"node_modules/{name}"]["version"])


#: A user's tsconfig: strict. One compilation covers every directory (each example resolves its imports from its
#: own directory's node_modules).
USER_TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2022", "DOM"],
        "types": [],
        "strict": True,
        "skipLibCheck": True,
    },
    "include": ["*/example.ts"],
}


def test_the_packed_tarball_runs_the_readme_examples_beside_only_their_framework(
    stack: RunningStack,  # noqa: F811
    tmp_path: Path,
) -> None:
    npm_ready()
    examples = readme_examples()
    assert set(examples) == set(DOORS)
    run(BIN / "tsc", "-p", "tsconfig.json")
    packed = json.loads(run("npm", "pack", "--json", "--pack-destination", tmp_path))
    tarball = tmp_path / packed[0]["filename"]
    assert {f["path"] for f in packed[0]["files"]} >= {"package.json", "dist/index.js", "dist/ai.d.ts"}
    assert not any(f["path"].startswith(("src/", "test/", "node_modules/")) for f in packed[0]["files"])
    print(f"\n@offprompt/client tarball: {packed[0]['size']} bytes packed, {packed[0]['unpackedSize']} unpacked")

    # One empty directory per door: the tarball and that door's framework (the lockfile's versions), nothing else.
    installs: dict[str, tuple[Path, subprocess.Popen[str]]] = {}
    for entry, frameworks in DOORS.items():
        home = tmp_path / entry.replace("/", "_").replace("@", "")
        home.mkdir()
        (home / "package.json").write_text('{"name": "user", "private": true, "type": "module"}\n', encoding="utf-8")
        specs = [str(tarball), *(f"{name}@{locked_version(name)}" for name in frameworks)]
        command = ["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", *specs]
        installs[entry] = (
            home,
            subprocess.Popen(command, cwd=home, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
        )
    for entry, (home, process) in installs.items():
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, f"{entry}: {output}"
        others = {name for frameworks in DOORS.values() for name in frameworks} - set(DOORS[entry])
        assert not [name for name in others if (home / "node_modules" / name).is_dir()], f"{entry}: {output}"

    for entry, (home, _) in installs.items():
        (home / "example.ts").write_text(examples[entry], encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps(USER_TSCONFIG), encoding="utf-8")
    run(BIN / "tsc", "-p", tmp_path / "tsconfig.json", cwd=tmp_path)  # strict, against the packed .d.ts

    env = stack_env(stack.url)
    examples_run = {
        entry: subprocess.Popen(
            ["node", "example.js"], cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for entry, (home, _) in installs.items()
    }
    for entry, process in examples_run.items():
        output, _ = process.communicate(timeout=180)
        assert process.returncode == 0, f"{entry}:\n{output}"
        assert output.splitlines() == expected_output(examples[entry]), f"{entry}:\n{output}"

    # What the README says about size and import time: measured on the installed package.
    home = installs["@offprompt/client"][0]
    script = 'const t = performance.now(); await import("@offprompt/client"); console.log(performance.now() - t)'
    timings = [float(run("node", "--input-type=module", "-e", script, cwd=home)) for _ in range(3)]
    print(f"cold import of @offprompt/client: {min(timings):.1f} ms (best of 3 processes)")
    assert min(timings) < 200, timings
