"""Example folders ``tests/examples/diff/<case>/``: old + new -> expected text and JSON.

Set ``VCONTEXT_UPDATE_EXAMPLES=1`` to (re)write the expected files from the
current output; review the result with ``git diff`` before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from git_vcontext.codecs import parse
from git_vcontext.diffing import diff
from git_vcontext.diffing.render import render_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "diff"
CASES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())
UPDATE = bool(os.environ.get("VCONTEXT_UPDATE_EXAMPLES"))


def _side(folder: Path, name: str) -> object:
    path = next(folder.glob(f"{name}.*"))
    return parse(path.read_bytes(), path=str(path)).data


def _has_view() -> bool:
    try:
        import git_vcontext.playbook.view  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("case", CASES)
def test_diff_example(case: str) -> None:
    folder = EXAMPLES / case
    expected_file = folder / "expected.json"
    expected_json = expected_file.read_text(encoding="utf-8") if expected_file.exists() else ""
    if '"view": true' in expected_json and not _has_view() and not UPDATE:
        pytest.skip("needs the playbook view (git_vcontext.playbook)")
    result = diff(_side(folder, "old"), _side(folder, "new"))
    text = render_text(result)
    data = result.to_json()
    if UPDATE:
        (folder / "expected.txt").write_text(text, encoding="utf-8")
        expected_json = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        expected_file.write_text(expected_json, encoding="utf-8")
    assert text == (folder / "expected.txt").read_text(encoding="utf-8")
    assert data == json.loads(expected_json)


def test_the_examples_cover_every_op_and_kind() -> None:
    ops, kinds = set(), set()
    for case in CASES:
        expected = json.loads((EXAMPLES / case / "expected.json").read_text(encoding="utf-8"))
        ops |= {c["op"] for c in expected["changes"]}
        kinds |= {c["kind"] for c in expected["changes"]}
    assert ops == {"add", "remove", "change", "move"}
    assert {"value", "item", "set", "text", "sequence", "fork", "changeLog", "event"} <= kinds
