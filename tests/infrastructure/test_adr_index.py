"""docs/adr/README.md is the index of the ADRs: every ADR file has its row, and the row's status says what the
file's own `Status:` line says (accepted or not, and which later ADRs amend or supersede it)."""

from __future__ import annotations

import re
from pathlib import Path

ADR = Path(__file__).resolve().parents[2] / "docs" / "adr"


def _rows() -> dict[str, str]:
    rows = {}
    for line in (ADR / "README.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| \[(\d{4})\]\((\d{4}-[^)]+\.md)\) \| .+ \| (.+) \|$", line)
        if match:
            assert match.group(2).startswith(match.group(1)), line
            rows[match.group(2)] = match.group(3)
    return rows


def test_every_adr_is_in_the_index_and_nothing_else_is() -> None:
    assert set(_rows()) == {p.name for p in ADR.glob("0*.md")}


def test_each_row_says_what_the_adrs_status_line_says() -> None:
    rows = _rows()
    for path in sorted(ADR.glob("0*.md")):
        status = re.search(r"(?im)^status:\s*(.+)$", path.read_text(encoding="utf-8"))
        assert status is not None, f"{path.name} has no Status: line"
        line, row = status.group(1).lower(), rows[path.name].lower()
        assert row.split(";")[0] == line.split()[0].strip(".;,"), (path.name, row, line)
        for later in re.findall(r"amended by (\d{4})", line):
            assert later in row, (path.name, later)
        assert ("supersed" in row) == ("supersed" in line), (path.name, row, line)
