"""``merge_files`` as the tests call it: a fallback that covers an engine crash fails the test."""

from __future__ import annotations

from typing import Any

from git_vcontext.merging import files
from git_vcontext.merging.files import FileMerge


def merge_files(base: bytes | None, ours: bytes, theirs: bytes, **options: Any) -> FileMerge:
    """The library's ``merge_files``; the driver hides a bug behind the line merge (M16) so
    that no merge is lost, but a test must see it: an internal-error fallback fails here."""
    out = files.merge_files(base, ours, theirs, **options)
    assert not out.internal_error, f"the merge engine crashed: {out.reasons}"
    return out
