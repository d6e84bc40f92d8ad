"""``git vcontext status``'s text report names each document as conflicts and validate do
(``quoted_path``): a name holding a newline or a tab splits or misaligns no line
(PRODUCT.md, command-line contract: one line per finding; "Bad input": names from the
repository are shown, never obeyed). Pure logic: the report of rows built by hand."""

from __future__ import annotations

from git_vcontext.sync.status import AgentStatus, ForkSequence, table

NAME = "notes\nline two.vcontext.json"
SHOWN = '"notes\\nline two.vcontext.json"'


def _row() -> AgentStatus:
    fork = ForkSequence(NAME, "todoList", 3, 5, "unmerged")
    return AgentStatus(
        agent="a1",
        branch="agents/a1",
        base="main",
        ahead=1,
        behind=2,
        state="needs sync",
        documents=(NAME,),
        forks=(fork,),
        conflicts=(),
    )


def test_every_line_naming_a_document_quotes_a_name_holding_a_newline() -> None:
    lines = table([_row()])
    assert not any("\n" in line for line in lines), lines
    assert f"  {SHOWN}" in lines  # the document's own line
    sequence = [line for line in lines if line.startswith("  sequence: ")]
    assert sequence == [f"  sequence: {SHOWN} (todoList): forked at 3, base now at 5"]
