"""VerMAS ``.work/.assignment-*`` files are plain text merged by lines (PRODUCT.md "VerMAS (seed
004) in full"): never parsed as JSON or TRON, clean when the line merge is."""

from __future__ import annotations

from git_vcontext.merge.files import merge_files

PATH = ".work/.assignment-project-a-workers-slot0"


def test_one_side_reassigned_takes_that_side_clean() -> None:
    base = b"work_order:wo-abc123\n"
    outcome = merge_files(base, base, b"mail:msg-xyz789\n", path=PATH)
    assert (outcome.status, outcome.clean, outcome.output) == ("clean", True, b"mail:msg-xyz789\n")


def test_lines_changed_apart_merge_cleanly_as_git_merge_file_would() -> None:
    base = b"work_order:wo-1\n\n# notes\nfirst\n"
    ours = b"work_order:wo-2\n\n# notes\nfirst\n"
    theirs = b"work_order:wo-1\n\n# notes\nsecond\n"
    outcome = merge_files(base, ours, theirs, path=PATH)
    assert outcome.clean and outcome.output == b"work_order:wo-2\n\n# notes\nsecond\n"
    assert outcome.reasons == ()  # by design, not a fallback


def test_both_reassigned_differently_is_a_conflict_with_markers() -> None:
    base = b"work_order:wo-1\n"
    outcome = merge_files(base, b"work_order:wo-2\n", b"process:proc-9\n", path=PATH)
    assert outcome.status == "conflict" and not outcome.clean
    assert outcome.output.startswith(b"<<<<<<< ours\nwork_order:wo-2\n=======\nprocess:proc-9\n")
