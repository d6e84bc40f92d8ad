"""The messages of sync's merge commits: the documents listed, whatever their names."""

from __future__ import annotations

from git_vcontext.branches.commits import (
    document_lines,
    is_sync_commit_message,
    says_drop,
    sync_message,
)
from git_vcontext.mcp_server.service import dropped


def test_a_documents_name_with_a_line_break_is_c_quoted_never_a_line_of_its_own() -> None:
    """PRODUCT.md "The remote guards itself" (a document holding only ``changeLog`` entries
    may go when the commit says so with a ``Vcontext-Drop:`` line, which the hook and the
    guard read at a line's start): a document named ``a\\nVcontext-Drop: b`` wrote that
    line into sync's merge commit, which never means it (found in trial9). Each name is
    listed as git shows it, C-quoted; plain names stay as they are."""
    hostile = "notes/a\nVcontext-Drop: b.vcontext.json"

    message = sync_message("merge agents/bob into main", ["bob"], ["todo.vcontext.json", hostile])

    lines = message.split("\n")
    assert not any(line.startswith("Vcontext-Drop:") for line in lines), message
    assert '- "notes/a\\nVcontext-Drop\\072 b.vcontext.json"' in lines
    assert "- todo.vcontext.json" in lines
    assert is_sync_commit_message(message)
    assert document_lines(["docs/plan notes.vcontext.tron"]) == ["- docs/plan notes.vcontext.tron"]


def test_a_documents_name_never_carries_the_drop_trailers_word_anywhere() -> None:
    """PRODUCT.md "The remote guards itself": the hook and the guard read ``Vcontext-Drop:``
    anywhere in a message (``prepush.undone.may_undo``, ``prepush.verdicts``: a substring,
    not a line), so C-quoting a name with a line break kept the word, and a document named
    ``plans/Vcontext-Drop: x`` (no control character at all) listed it as it is: sync's
    merge commit, and fork's, said they drop records on purpose. The word's colon is
    written as git's octal escape (``\\072``) in a C-quoted name, which reads back as the
    same name; names without the word stay as they were."""
    from git_vcontext.branches.commits import SAID
    from git_vcontext.sync.fork import _message
    from git_vcontext.validation.history import DROP_SAID

    hostile = ["notes/a\nVcontext-Drop: b.vcontext.json", "plans/Vcontext-Drop: x.vcontext.json"]

    for message in (
        sync_message("merge agents/bob into main", ["bob"], hostile),
        _message("bob", "main", None, tuple(hostile), tuple(hostile), ()),
    ):
        assert SAID not in message, message
        assert DROP_SAID not in message, message
        assert "\nVcontext-Drop" not in message, message
    assert document_lines(hostile) == [
        '- "notes/a\\nVcontext-Drop\\072 b.vcontext.json"',
        '- "plans/Vcontext-Drop\\072 x.vcontext.json"',
    ]
    assert is_sync_commit_message(sync_message("t", ["bob"], hostile))


def test_a_forks_reason_and_parse_errors_are_one_line_never_the_drop_trailer() -> None:
    """PRODUCT.md "MCP server" (every tool argument is hostile input; ``Vcontext-Drop:``
    lets a commit drop records, read anywhere in a message): ``vbrief_create_fork``'s
    ``reason`` went into the fork commit as it is, so ``x\\nVcontext-Drop: y`` wrote the
    trailer (the MCP subjects were defused, this line was not). The reason is one line,
    the trailer's word defused as in the MCP subjects (``commits.said_line``)."""
    from git_vcontext.branches.commits import SAID
    from git_vcontext.mcp_server.service import subject
    from git_vcontext.sync.fork import _message

    hostile = "legit\n\nVcontext-Drop: because"

    message = _message("bob", "main", hostile, ("todo.vcontext.json",), (), ())

    assert SAID not in message, message
    assert "Reason: legit Vcontext-Drop : because\n" in message, message
    assert subject(hostile) == "legit Vcontext-Drop : because"


def test_a_drop_is_said_by_a_line_that_starts_with_the_key_never_by_prose() -> None:
    """PRODUCT.md history rules (a document holding only ``changeLog`` entries may go, and a
    commit may drop what a sync merge brought, when the commit says so with a
    ``Vcontext-Drop: <why>`` line): one reading (``says_drop``) for the hook, the guard's
    light and full paths and ``check``. A message quoting the key in prose said it before
    (a match anywhere, found in trial9); every writer's form still says it: the MCP
    server's delete commit, ``git commit --trailer``, a person's line in the body, one
    followed by a ``Signed-off-by:`` paragraph, a CRLF message."""
    mcp = "vcontext mcp: delete plan p\n\nTool: t\nAgent: a\nDocument: d\n" + dropped("p (t)")
    said = [
        mcp,
        "drop the todo list\n\nVcontext-Drop: done with it\n",
        "drop\n\nVcontext-Drop: done\n\nSigned-off-by: A <a@b>\n",
        "drop\r\n\r\nVcontext-Drop: done\r\n",
        "Vcontext-Drop: a subject that is the line\n",
    ]
    prose = [
        "tidy\n\nThe Vcontext-Drop: trailer is for deletions; this is none.\n",
        "mention Vcontext-Drop: in the subject\n",
        "tidy\n\n  Vcontext-Drop: indented, a continuation line for git\n",
        "tidy\n\nvcontext-drop: other case\n",
        "tidy\n\nVcontext-Dropped: another key\n",
        "",
    ]
    assert [m for m in said if not says_drop(m)] == []
    assert [m for m in prose if says_drop(m)] == []
    assert not says_drop(None)
