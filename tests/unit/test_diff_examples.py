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
from git_vcontext.diff import diff
from git_vcontext.diff.render import render_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "diff"
CASES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())
UPDATE = bool(os.environ.get("VCONTEXT_UPDATE_EXAMPLES"))


def _side(folder: Path, name: str) -> object:
    path = next(folder.glob(f"{name}.*"))
    return parse(path.read_bytes(), path=str(path)).data


@pytest.mark.parametrize("case", CASES)
def test_diff_example(case: str) -> None:
    folder = EXAMPLES / case
    result = diff(_side(folder, "old"), _side(folder, "new"))
    text = render_text(result)
    data = result.to_json()
    if UPDATE:
        (folder / "expected.txt").write_text(text, encoding="utf-8")
        (folder / "expected.json").write_text(
            json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    assert text == (folder / "expected.txt").read_text(encoding="utf-8")
    assert data == json.loads((folder / "expected.json").read_text(encoding="utf-8"))


def test_the_examples_cover_every_op_and_kind() -> None:
    ops, kinds = set(), set()
    for case in CASES:
        expected = json.loads((EXAMPLES / case / "expected.json").read_text(encoding="utf-8"))
        ops |= {c["op"] for c in expected["changes"]}
        kinds |= {c["kind"] for c in expected["changes"]}
    assert ops == {"add", "remove", "change", "move"}
    assert {"value", "item", "set", "text", "sequence", "fork", "changeLog", "event"} <= kinds
