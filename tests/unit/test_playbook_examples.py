"""The example folders of tests/examples/playbook: document in, expected view out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_vcontext.codecs import parse
from git_vcontext.playbook import playbook_view

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "playbook"
CASES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())


@pytest.mark.parametrize("case", CASES)
def test_example_view(case: str) -> None:
    folder = EXAMPLES / case
    source = folder / "document.vcontext.json"
    data = parse(source.read_bytes(), path=str(source)).data
    expected = json.loads((folder / "view.json").read_text(encoding="utf-8"))
    assert playbook_view(data).to_json() == expected


def test_there_are_examples() -> None:
    assert {"concurrent-agents", "every-anomaly", "ace-in-a-plan"} <= set(CASES)
