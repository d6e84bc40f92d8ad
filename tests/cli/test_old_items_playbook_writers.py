"""A playbook whose log holds v0.3 items (no eventId/targetId: the pre-0.4 form, rule
`schema`, "rewrite each as an append event") gets no write from any writer, and each says
what mends it: validate's finding and the person's step, as every writer refuses a document
validate rejects (the standard: advice the tool prints leads somewhere). Before, `playbook
add|update|deprecate` and `vbrief_add_learning` said "nothing to chain an event to" (no way
on), and `ace apply` said "its log holds events: use 'git vcontext playbook'", which then
refused with that line: a loop. 24 corpus documents are of this form (the warp playbooks,
the spec's minimal playbook examples).
Real git, the SDK's client for MCP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import dumps, parse
from git_vcontext.errors import ParseError
from git_vcontext.playbook.log import find_playbooks, log_kind, log_of
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli, run_git

OLD = {
    "vContextInfo": {"version": "0.4"},
    "playbook": {
        "title": "Practices",
        "items": [{"title": "Tests in tmp", "status": "active", "content": "Never the real repo."}],
    },
}
PATCH = {
    "operations": [{"op": "appendEntry", "entry": {"id": "w", "kind": "warning", "text": "t"}}]
}
WRITES = {
    "add": ("playbook", "add", "--target", "t", "--kind", "learning", "--text", "Look twice."),
    "update": ("playbook", "update", "--target", "t", "--delta", "helpfulCount=+1"),
    "deprecate": ("playbook", "deprecate", "--target", "t", "--reason", "old"),
    "ace": ("ace", "apply", "PATCH"),
}


def _refused_as_validate_rejects(done: Any, rel: str) -> None:
    said = done.stderr.decode()
    assert done.returncode == 1, said
    assert said.count("\n") == 1, said
    assert said.startswith(f"git-vcontext: error: {rel}: playbook.items: "), said
    assert "[schema]; nothing written, validate rejects it as it is" in said, said
    assert f"mend it first (git vcontext validate {rel})" in said, said


@pytest.mark.parametrize("fmt", ["json", "tron"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_a_cli_writer_into_v03_items_says_validates_finding_and_its_step(
    git_repo: Path, write: str, fmt: str
) -> None:
    rel = f"practices.vcontext.{fmt}"
    (git_repo / rel).write_text(dumps(OLD, "tron" if fmt == "tron" else "json"))
    (git_repo / "patch.json").write_text(json.dumps(PATCH))
    before = (git_repo / rel).read_bytes()
    args = [("patch.json" if a == "PATCH" else a) for a in WRITES[write]]
    where = 3 if write == "ace" else 2
    done = run_cli(*args[:where], rel, *args[where:], cwd=git_repo)
    _refused_as_validate_rejects(done, rel)
    assert (git_repo / rel).read_bytes() == before
    # the step leads somewhere: validate names the finding and how to mend it
    shown = run_cli("validate", rel, cwd=git_repo)
    assert shown.returncode == 1
    assert "rewrite each as an append event of the event log [schema]" in shown.stdout.decode()


MCP_WRITES = {
    "vbrief_add_learning": {"targetId": "t", "kind": "learning", "content": "x"},
    "vbrief_rate_learning": {"targetId": "t", "helpful": 1},
    "vbrief_deprecate_learning": {"targetId": "t", "reason": "old"},
}


@pytest.mark.parametrize("tool", sorted(MCP_WRITES))
def test_mcp_learning_writes_into_v03_items_are_refused_with_validates_finding(
    git_repo: Path, tool: str
) -> None:
    """Rating and deprecating too: they said "no learning with targetId 't' (targetIds:
    #0)", a target no write could take, where ``playbook update|deprecate`` say
    validate's finding (one truth)."""
    rel = ".vcontext/playbook.json"
    path = git_repo / rel
    path.parent.mkdir()
    path.write_text(json.dumps(OLD, indent=2) + "\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "old playbook")
    before = path.read_bytes()

    async def main() -> Any:
        async with in_process(git_repo) as client:
            return await client.call_tool(tool, MCP_WRITES[tool])

    result = run(main)
    said = text(result)
    assert result.is_error, said
    assert (result.structured_content or {})["error"]["kind"] == "rejected", said
    assert said.startswith(f"{rel}: playbook.items: "), said
    assert "[schema]; nothing written, validate rejects it as it is" in said
    assert (
        f"A PERSON MUST DO THIS (no MCP tool can): mend it first (git vcontext validate {rel})"
        in said
    )
    assert path.read_bytes() == before


@pytest.mark.corpus
def test_every_corpus_playbook_of_v03_items_is_refused_with_validates_finding(
    shared_dir: Path, git_repo: Path
) -> None:
    (git_repo / "patch.json").write_text(json.dumps(PATCH))
    seen = 0
    for path in sorted((shared_dir / "corpus").rglob("*")):
        if path.suffix not in (".json", ".tron") or not path.is_file():
            continue
        try:
            data = parse(path.read_bytes(), path=path.name).data
        except (ParseError, RecursionError):
            continue
        found = find_playbooks(data)
        if not found or log_kind(log_of(found[0][1])[1]) != "items":
            continue
        seen += 1
        rel = f"doc{seen}.vcontext{path.suffix}"
        (git_repo / rel).write_bytes(path.read_bytes())
        for args in (WRITES["add"], ("ace", "apply", "patch.json")):
            where = 3 if args[0] == "ace" else 2
            done = run_cli(*args[:where], rel, *args[where:], cwd=git_repo)
            said = done.stderr.decode()  # validate's first finding may be another's
            assert done.returncode == 1, (path, said)
            assert said.count("\n") == 1, (path, said)
            assert "nothing written, validate rejects it as it is" in said, (path, said)
            assert f"mend it first (git vcontext validate {rel})" in said, (path, said)
            assert "[schema]" in said, (path, said)  # the v0.3 items' finding, or among more
        assert (git_repo / rel).read_bytes() == path.read_bytes()
    assert seen >= 24, seen  # 24 when this test came in
