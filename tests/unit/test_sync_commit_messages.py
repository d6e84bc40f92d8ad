"""The messages of sync's merge commits: the documents listed, whatever their names."""

from __future__ import annotations

from git_vcontext.branches.commits import document_lines, is_sync_commit_message, sync_message


def test_a_documents_name_with_a_line_break_is_c_quoted_never_a_line_of_its_own() -> None:
    """PRODUCT.md "The remote guards itself" (a document holding only ``changeLog`` entries
    may go when the commit says so with a ``Vcontext-Drop:`` line, which the hook and the
    guard read anywhere in a message): a document named ``a\\nVcontext-Drop: b`` wrote that
    line into sync's merge commit, which never means it (found in trial9). Each name is
    listed as git shows it, C-quoted; plain names stay as they are."""
    hostile = "notes/a\nVcontext-Drop: b.vcontext.json"

    message = sync_message("merge agents/bob into main", ["bob"], ["todo.vcontext.json", hostile])

    lines = message.split("\n")
    assert not any(line.startswith("Vcontext-Drop:") for line in lines), message
    assert '- "notes/a\\nVcontext-Drop: b.vcontext.json"' in lines
    assert "- todo.vcontext.json" in lines
    assert is_sync_commit_message(message)
    assert document_lines(["docs/plan notes.vcontext.tron"]) == ["- docs/plan notes.vcontext.tron"]
