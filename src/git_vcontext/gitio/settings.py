"""How conflicts are written and settled: git config read once, when a merge has conflicts."""

from __future__ import annotations

import os

from ..faults import step
from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..merging.result import Side

FAVOR_SIDES = ("ours", "theirs")
KEYS = r"^merge\.(conflictstyle|vcontext\.(conflictstyle|favor))$"
FAVOR_ENV = "GIT_VCONTEXT_FAVOR"


@record
class MergeSettings:
    """``merge.conflictStyle``, ``merge.vcontext.conflictStyle`` and the side to favor."""

    diff3: bool = False  # a base section in each marker block
    structured: bool = False  # conflicts as a ConflictResolution instead of markers
    favor: Side | None = None  # settle every conflict on that side
    warnings: tuple[str, ...] = ()  # for the command to say (a favor ignored)


def merge_settings(
    explicit_style: str | None = None, *, cwd: str | os.PathLike[str] | None = None
) -> MergeSettings:
    """The settings of the repository at ``cwd`` (``$GIT_VCONTEXT_FAVOR`` overrides config)."""
    values: dict[str, str] = {}  # (the last value of each key wins, as in git)
    try:
        if cwd is None and hasattr(os, "posix_spawnp"):  # the driver: in git's directory
            for line in _config_here().splitlines():
                key, space, value = line.partition(" ")
                if space:  # (a key written without a value: no line of "key value")
                    values[key] = value
        else:  # (one listing of git's, shared with the command's other reads: configread)
            from .configread import matching

            here = "." if cwd is None else os.fspath(cwd)  # (no posix_spawnp: here too)
            values.update((k, v) for k, v in matching(here, KEYS) if v is not None)
    except Exception:  # no git, no repository: the defaults
        values.clear()
    style = values.get("merge.conflictstyle", "merge")
    structured = (explicit_style or values.get("merge.vcontext.conflictstyle")) == "structured"
    favor, warning = checked_favor(os.environ.get(FAVOR_ENV) or values.get("merge.vcontext.favor"))
    diff3 = style in ("diff3", "zdiff3")
    return MergeSettings(diff3, structured, favor, (warning,) if warning else ())


def checked_favor(value: str | None) -> tuple[Side | None, str | None]:
    """``ours``/``theirs`` (any case), or None for nothing; anything else is ignored (None),
    with the warning to give: returned, for the command to say (this layer prints nothing)."""
    if not value:
        return None, None
    side = value.strip().lower()
    if side == "ours":  # FAVOR_SIDES, one by one for the type checker
        return "ours", None
    if side == "theirs":
        return "theirs", None
    return None, (
        f"ignoring favor {value!r} (merge.vcontext.favor or {FAVOR_ENV}): use ours or theirs"
    )


def _config_here() -> str:
    """What ``git config --get-regexp`` says of the settings above in the current
    directory (git's exit code does not matter: 1 is "none set"), run with ``os`` alone:
    the ``subprocess`` module's import (with ``signal``, ``threading``, ``selectors`` and
    ``enum``) cost the driver of every conflicted file ~5 ms (issue 32)."""
    step("git config --get-regexp")  # the kill point git() has (fault-injection tests)
    read, write = os.pipe()  # (both not inherited: only the copy on 1 reaches git)
    try:
        pid = os.posix_spawnp(
            "git",
            ["git", "config", "--get-regexp", KEYS],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    chunks: list[bytes] = []
    try:
        while chunk := os.read(read, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "surrogateescape")
