"""Every document of ``../shared/corpus`` served and written through the MCP tools.

Real documents are messier than ours (PRODUCT.md, "MCP server (seed 003)"): each write
either lands valid in the file's own format (PRODUCT.md, "One truth": whatever the
server writes, validate accepts), or is refused in one line with the file untouched (a
file that does not parse, a pre-0.4 playbook, a document validate rejects as it is).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import git_vcontext as gv
from git_vcontext.mcp_server import startup as setup
from git_vcontext.mcp_server.resources import read
from git_vcontext.mcp_server.service import Options
from git_vcontext.mcp_server.tools.dispatch import call
from git_vcontext.validation import validate

PROBES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "todoList": ("vbrief_create_todo", "todoListId", {"title": "corpus probe"}),
    "plan": ("vbrief_add_plan_item", "planId", {"item": {"title": "corpus probe"}}),
    "playbook": (
        "vbrief_add_learning",
        "playbookId",
        {"targetId": "corpus-probe", "kind": "note", "narrative": {"Overview": "corpus probe"}},
    ),
}
EXPECTED_REFUSALS = {"unparsable", "refused", "rejected"}
"""No parse; v0.3 items / ACE playbooks; a document validate rejects as it is (no
vContextInfo, a 0.3 version, any other finding), never written into (one truth)."""


@pytest.mark.corpus
def test_mcp_writes_every_corpus_document_or_refuses_in_one_line(
    shared_dir: Path, tmp_path: Path
) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(shared_dir / "corpus", root)
    for path in [root, *root.rglob("*")]:  # the corpus is read-only, which writes refuse
        path.chmod(path.stat().st_mode | 0o200)
    where, repo = setup.find_root(str(root))
    svc = setup.service(Options(root=where), repo)
    entries = svc.catalog.entries()
    assert len(entries) > 500
    written = refused = 0
    for entry in entries:
        text, _ = read(svc, entry.uri)
        assert text
        before = (root / entry.rel).read_bytes()
        tool, key, args = PROBES[entry.kind]
        answer = call(svc, tool, {key: entry.id, **args})
        if answer.error:
            refused += 1
            assert answer.data["error"]["kind"] in EXPECTED_REFUSALS, (entry.rel, answer.text)
            assert "\n" not in answer.text
            assert (root / entry.rel).read_bytes() == before
            if answer.data["error"]["kind"] == "rejected":  # validate rejects it as it is
                found = validate(gv.loads(before, path=entry.rel)).findings
                assert found, entry.rel
                assert f"[{found[0].rule}]" in answer.text, (entry.rel, answer.text)
            continue
        written += 1
        after = gv.load(str(root / entry.rel))
        assert after.format == gv.loads(before, path=entry.rel).format
        assert "corpus probe" in (root / entry.rel).read_text()
        assert validate(after, path=entry.rel).valid, entry.rel  # whatever is written
    print(f"MCP corpus writes: {written} written, {refused} refused")
    assert written > 740  # 752 written, 111 refused (71 'rejected') when it came in
    assert refused < 120
