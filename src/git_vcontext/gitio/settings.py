"""How conflicts are written and settled: git config read once, when a merge has conflicts."""

from __future__ import annotations

import os
import sys

from ..record import record
from . import git

FAVOR_SIDES = ("ours", "theirs")
FAVOR_ENV = "GIT_VCONTEXT_FAVOR"


@record
class MergeSettings:
    """``merge.conflictStyle``, ``merge.vcontext.conflictStyle`` and the side to favor."""

    diff3: bool = False  # a base section in each marker block
    structured: bool = False  # conflicts as a ConflictResolution instead of markers
    favor: str | None = None  # "ours" | "theirs": settle every conflict on that side


def merge_settings(
    explicit_style: str | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> MergeSettings:
    """The settings of the repository at ``cwd`` (``$GIT_VCONTEXT_FAVOR`` overrides config)."""
    try:
        out = git(
            ["config", "--get-regexp", r"^merge\.(conflictstyle|vcontext\.(conflictstyle|favor))$"],
            cwd=cwd,
            check=False,
        ).stdout
    except Exception:  # no git, no repository: the defaults
        out = ""
    values = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    style = values.get("merge.conflictstyle", "merge")
    structured = (explicit_style or values.get("merge.vcontext.conflictstyle")) == "structured"
    favor = os.environ.get(FAVOR_ENV) or values.get("merge.vcontext.favor")
    return MergeSettings(style in ("diff3", "zdiff3"), structured, checked_favor(favor))


def checked_favor(value: str | None) -> str | None:
    """``ours``/``theirs`` (any case); None for nothing; anything else: ignored, with a warning."""
    if not value:
        return None
    side = value.strip().lower()
    if side in FAVOR_SIDES:
        return side
    print(
        f"git-vcontext: warning: ignoring favor {value!r} (merge.vcontext.favor or {FAVOR_ENV}):"
        " use ours or theirs",
        file=sys.stderr,
    )
    return None
