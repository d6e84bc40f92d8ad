"""tests/examples/validate/<case>/: a document and the exact report validate gives for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.validation.files import check_bytes
from helpers.run import REPO_ROOT

EXAMPLES = REPO_ROOT / "tests" / "examples" / "validate"
CASES = sorted(p for p in EXAMPLES.iterdir() if p.is_dir())


def _document(case: Path) -> Path:
    (doc,) = [p for p in case.iterdir() if p.name != "expected.txt"]
    return doc


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_validate_example(case: Path) -> None:
    doc = _document(case)
    report = check_bytes(doc.read_bytes(), doc.name)
    lines = report.lines() + [f"{doc.name}: skipped: {s}" for s in report.skipped]
    assert lines == (case / "expected.txt").read_text("utf-8").splitlines()


def test_every_rule_family_has_an_example() -> None:
    rules = set()
    for case in CASES:
        doc = _document(case)
        rules |= {f.rule for f in check_bytes(doc.read_bytes(), doc.name).findings}
    assert {"schema", "datetime", "unique-id", "unique-event-id", "version"} <= rules
    assert {"dependency-cycle", "dependency-missing", "changelog-sequence"} <= rules
    assert {"fork-parent-sequence", "fork-merge-status", "conflict-markers"} <= rules
    assert "playbook-dangling-prev" in rules
