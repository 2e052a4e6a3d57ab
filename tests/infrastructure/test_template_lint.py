"""template.yaml is clean under cfn-lint (offline; SAM is transformed by cfn-lint itself)."""

from __future__ import annotations

from pathlib import Path

from cfnlint.api import lint_file

ROOT = Path(__file__).resolve().parents[2]


def test_template_has_no_cfn_lint_findings() -> None:
    matches = lint_file(ROOT / "template.yaml")
    assert [f"{m.rule.id} {m.filename}:{m.linenumber} {m.message}" for m in matches] == []
