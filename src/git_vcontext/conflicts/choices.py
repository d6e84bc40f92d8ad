"""Choices made so far on a conflicted file, kept under ``.git/vcontext/resolve/`` by stage ids.

Each ``resolve`` call merges the index stages again and applies every choice
recorded for exactly those stages, so the state of a stopped merge is never read
back from the half-resolved text in the work tree.

The choices belong to one stopped attempt (``gitio.operation.stopped_at``): the same
conflict met again — ``git merge --abort`` and the merge redone, a failed ``stash pop``
or ``checkout -m`` undone and done again: the same stages — starts afresh; records of
files no longer conflicted in that work tree are removed (``prune``).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..fsio import write_atomic
from ..merging.textmerge import Markers
from ..resolution.model import Choice, Style
from ..spelling import dumps as json_dumps
from ..spelling import float_of

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def state_dir(common_dir: str | os.PathLike[str]) -> Path:
    return Path(common_dir) / "vcontext" / "resolve"


class ResolveState:
    """The record of one conflicted file: its stages, merge time, style and choices."""

    def __init__(
        self,
        common_dir: str | os.PathLike[str],
        path: str,
        stages: Sequence[str],
        *,
        since: str | None = None,
        top: str | None = None,
    ) -> None:
        self.path = path
        self.stages = list(stages)
        self.since = since  # when the operation stopped: older choices are an aborted attempt's
        self.top = top  # the work tree the conflict is in (several share one common dir)
        self.file = state_dir(common_dir) / f"{state_key(path, self.stages)}.json"
        self.now: str | None = None
        self.style: Style | None = None
        self.choices: dict[str, Choice] = {}
        self.found = self._load()

    def _load(self) -> bool:
        try:
            raw = json.loads(self.file.read_text(encoding="utf-8"), parse_float=float_of)
        except (OSError, ValueError):
            return False
        if raw.get("path") != self.path or raw.get("stages") != self.stages:
            return False
        if raw.get("since") != self.since:  # the same conflict, met again after an abort
            return False
        self.now = raw.get("now")
        self.style = _style_from(raw.get("style") or {})
        self.choices = {k: Choice.from_json(v) for k, v in (raw.get("choices") or {}).items()}
        return True

    def save(self) -> None:
        record: dict[str, Any] = {
            "path": self.path,
            "stages": self.stages,
            "since": self.since,
            "now": self.now,
            "style": _style_json(self.style or Style()),
            "choices": {k: c.to_json() for k, c in self.choices.items()},
            "top": self.top,
        }
        self.file.parent.mkdir(parents=True, exist_ok=True)
        text = json_dumps(record, indent="  ") + "\n"
        write_atomic(self.file, text.encode("utf-8"), force=True)  # our own state

    def forget(self) -> None:
        """Drop the choices. Copies of hand-edited texts stay: resolve told the user where
        they are, and what was added by hand lives only there."""
        try:
            self.file.unlink()
        except OSError:
            pass

    def edited_copy(self, text: str) -> Path:
        """Where a work-tree text edited since the merge stopped is kept: one file per
        text, so a second hand edit never overwrites the first one's copy."""
        digest = hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()[:12]
        return self.file.with_name(f"{self.file.stem}-{digest}.edited")


def state_key(path: str, stages: Sequence[str]) -> str:
    key = hashlib.sha1("\0".join([path, *stages]).encode("utf-8", "surrogateescape"))
    return key.hexdigest()[:20]


def prune(common_dir: str | os.PathLike[str], top: str, live: set[str]) -> None:
    """Remove the records of work tree ``top`` whose conflict is gone (``live``: the keys of
    the conflicts its index holds now): left behind by an aborted merge or a conflict
    settled by hand. Other work trees' records and the copies of edited texts stay."""
    folder = state_dir(common_dir)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return
    for name in names:
        if name[: -len(".json")] in live:
            continue
        path = folder / name
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(raw, dict) and raw.get("top") == top:
            try:
                path.unlink()
            except OSError:
                pass


def _style_json(style: Style) -> dict[str, Any]:
    m = style.markers
    return {
        "structured": style.structured,
        "size": m.size,
        "labels": [m.ours_label, m.base_label, m.theirs_label],
        "diff3": m.diff3,
        "newline": m.newline,
    }


def _style_from(raw: dict[str, Any]) -> Style:
    labels = raw.get("labels") or ["ours", "base", "theirs"]
    markers = Markers(
        int(raw.get("size") or 7),
        str(labels[0]),
        str(labels[1]),
        str(labels[2]),
        bool(raw.get("diff3")),
        str(raw.get("newline") or "\n"),
    )
    return Style(bool(raw.get("structured")), markers)
