"""One truth on the MCP write path (PRODUCT.md, "One truth"; the write path: "the result is
validated before it is written — an invalid result is refused, nothing written"): a file at
a conventional path that the server serves by its name but ``git vcontext validate``
rejects as a whole (rule `version`, PRODUCT.md "Versions": no vContextInfo, a 0.2 or 0.3
document, a JSON or a TRON file) is never written into; the same file
made valid takes the write, and the result validates. SDK client, real git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import dumps
from helpers.mcp_support import in_process, run, text
from helpers.run import run_cli
from helpers.write_path import AGENT, EPOCH, PLAN, commit_all

TODO = {"items": [{"id": "t1", "title": "Write docs", "status": "pending"}]}
CASES: dict[str, tuple[str, str, dict[str, Any], str, dict[str, Any]]] = {
    "plan": (".vcontext/plan.json", "plan", PLAN, "vbrief_add_plan_item",
             {"planId": "release", "item": {"title": "Docs"}}),
    "todo": (".vcontext/todo.json", "todoList", TODO, "vbrief_create_todo", {"title": "Docs"}),
    "plan-tron": (".vcontext/plan.tron", "plan", PLAN, "vbrief_add_plan_item",
                  {"planId": "release", "item": {"title": "Docs"}}),
}  # fmt: skip


def _write(path: Path, data: dict[str, Any]) -> None:
    """The document in its file's format (a TRON file judged as its JSON twin is)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(data, "tron" if path.suffix == ".tron" else "json"))


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)


def _call(root: Path, tool: str, args: dict[str, Any]) -> Any:
    async def main() -> Any:
        async with in_process(root, agent=AGENT) as client:
            return await client.call_tool(tool, args)

    return run(main)


def _validate(root: Path, rel: str) -> tuple[int, str]:
    done = run_cli("validate", rel, cwd=root)
    return done.returncode, done.stdout.decode() + done.stderr.decode()


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("info", [None, {"version": "0.2"}, {"version": "0.3"}])
def test_mcp_never_writes_into_a_document_validate_rejects(
    git_repo: Path, case: str, info: dict[str, str] | None
) -> None:
    rel, key, body, tool, args = CASES[case]
    path = git_repo / rel
    _write(path, {key: body} if info is None else {"vContextInfo": info, key: body})
    commit_all(git_repo)
    before = path.read_bytes()
    assert _validate(git_repo, rel)[0] == 1  # the file as it is: rejected

    result = _call(git_repo, tool, args)
    assert result.is_error, text(result)
    said = text(result)
    assert "\n" not in said
    assert said.startswith(f"{rel}: ")
    assert "nothing written" in said
    assert "A PERSON MUST DO THIS (no MCP tool can): " in said
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # none made beside


@pytest.mark.parametrize("case", sorted(CASES))
def test_mcp_writes_into_the_same_document_made_valid_and_it_validates(
    git_repo: Path, case: str
) -> None:
    rel, key, body, tool, args = CASES[case]
    path = git_repo / rel
    _write(path, {"vContextInfo": {"version": "0.4"}, key: body})
    commit_all(git_repo)
    assert _validate(git_repo, rel) == (0, _validate(git_repo, rel)[1])

    result = _call(git_repo, tool, args)
    assert not result.is_error, text(result)
    assert "Docs" in path.read_text()
    code, said = _validate(git_repo, rel)
    assert code == 0, said


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_write_into_a_document_mended_since_its_rejected_commit_says_written_not_committed(
    git_repo: Path, case: str
) -> None:
    """HEAD's copy is one validate rejects (no vContextInfo), the person mended the work
    tree: the write lands in the file (it validates) but cannot be committed on HEAD's
    copy. The answer says exactly that, with the person's step, and never "nothing
    written" (it was: "not committed: … nothing written (…)" after a write made)."""
    rel, key, body, tool, args = CASES[case]
    path = git_repo / rel
    _write(path, {key: body})
    commit_all(git_repo)
    _write(path, {"vContextInfo": {"version": "0.4"}, key: body})  # mended, not committed

    async def main() -> Any:
        async with in_process(git_repo, agent=AGENT, commit=True) as client:
            return await client.call_tool(tool, args)

    result = run(main)
    assert not result.is_error, text(result)
    assert "Docs" in path.read_text()
    assert _validate(git_repo, rel)[0] == 0
    assert "commit" not in result.structured_content  # (HEAD's copy was not written over)
    [note] = result.structured_content["notes"]
    assert note.startswith(f"written to {rel}, not committed: the last commit's version ")
    assert "nothing written" not in text(result)
    assert "[version]" in note  # why: the rule HEAD's copy breaks
    assert f"A PERSON MUST DO THIS (no MCP tool can): commit the mended {rel} (git commit" in note
