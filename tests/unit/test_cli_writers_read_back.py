"""The command-line writers (``playbook add``, ``ace apply``) read back what they write
once: a TRON document's ``render`` parses its edit to check it, and that reading is
handed over (``Document.read_back``, ``sync.judge.refuse_unwritable``), as the MCP writer
reads back, instead of a second whole parse of the result. PRODUCT.md, the write path:
"the result is validated before it is written" — what is written still reads back as the
edit's data and validates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import git_vcontext.codecs as codecs
from git_vcontext.codecs import dumps, parse
from git_vcontext.validation.files import check_bytes
from helpers.playbook import ace_plan


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The format of every whole parse (``codecs.parse``'s ``_loads``) from now on."""
    calls: list[str] = []
    real = codecs._loads

    def counting(fmt: Any, raw: Any) -> Any:
        calls.append(fmt)
        return real(fmt, raw)

    monkeypatch.setattr(codecs, "_loads", counting)
    return calls


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")


def test_playbook_add_reads_a_tron_document_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from git_vcontext.commands import playbook_edit

    data = {"vContextInfo": {"version": "0.4"}, "playbook": {"items": []}}
    Path("pb.tron").write_text(dumps(data, "tron"))
    calls = _counted(monkeypatch)
    given = playbook_edit.EventOptions(kind="rule", text="Pin them.")
    assert playbook_edit.run(action="add", file="pb.tron", target="pin", given=given) == 0
    assert calls == ["tron"]  # the read; the read-back was render's own
    raw = Path("pb.tron").read_bytes()
    assert [e["targetId"] for e in parse(raw, path="pb.tron").data["playbook"]["items"]] == ["pin"]
    assert check_bytes(raw, "pb.tron").valid


def test_ace_apply_reads_a_tron_document_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from git_vcontext.commands import ace

    entry = {"id": "e1", "kind": "strategy", "text": "Test first", "helpfulCount": 1}
    Path("plan.tron").write_text(dumps({"vAgendaInfo": {"version": "0.2"},
                                        "plan": ace_plan(entry)}, "tron"))  # fmt: skip
    op = {"op": "incrementCounter", "entryId": "e1", "delta": {"helpfulCount": 2}}
    Path("patch.json").write_text(json.dumps({"baseDocumentSequence": 12, "operations": [op]}))
    calls = _counted(monkeypatch)
    assert ace.run(patch="patch.json", doc="plan.tron") == 0
    assert calls.count("tron") == 1  # the read; the read-back was render's own
    raw = Path("plan.tron").read_bytes()
    assert parse(raw, path="plan.tron").data["plan"]["playbook"]["entries"][0]["helpfulCount"] == 3
    assert check_bytes(raw, "plan.tron").valid
