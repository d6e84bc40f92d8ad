"""``git vcontext view FILE``: a playbook's current view, as text or JSON, or its events drawn."""

from __future__ import annotations

import difflib
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import gitio
from ..codecs import Document, parse
from ..errors import ExitCode, NoPlaybookError, UsageError, VContextError
from ..fsio import read_bytes, write_output
from ..pictures.render import render
from ..pictures.view import playbook_picture
from ..playbook.metrics import facts_of, metric_differences, updated_metrics
from ..playbook.render import LOG_FORMS, matches, render_text
from ..playbook.view import locate, no_playbook_in, view_and_states
from ..spelling import escape_lone_surrogates
from ..values import pointer

if TYPE_CHECKING:
    from ..playbook.model import Entry, PlaybookView


PICTURES = ("dot", "mermaid")


def run(
    *,
    file: str,
    fmt: str = "text",
    status: str | None = None,
    kind: Sequence[str] = (),
    tag: Sequence[str] = (),
    search: str | None = None,
    rev: str | None = None,
    target: Sequence[str] = (),
    every: bool = False,
) -> int:
    """Print the view of the first playbook in FILE (at REV when given); exit 1 without one.

    Text and JSON show active entries unless ``status`` says otherwise; pictures
    (and entries named by ``target``) show every status.
    """
    if every and fmt not in PICTURES:
        raise UsageError(
            "--all draws every target of a large playbook: use it with --format dot|mermaid"
        )
    if status is None:
        status = "all" if fmt in PICTURES or target else "active"
    gc.disable()  # a short-lived process reading one big tree: the collector only costs time
    doc = load_document(file, rev)
    try:
        where, playbook = locate(doc.data)
    except NoPlaybookError:
        raise no_playbook_in(file, doc.data) from None
    view, states = view_and_states(playbook, path=where)
    shown = [
        e for e in view.entries if matches(e, status=status, kinds=kind, tags=tag, search=search)
    ]
    if target:
        shown = _named(view, shown, target)
    if fmt in PICTURES:
        return _picture(view, states, shown, fmt=fmt, every=every or bool(target), name=file)
    stored = playbook.get("metrics")
    diffs = metric_differences(stored, updated_metrics(playbook, facts_of(view.entries)))
    if fmt == "json":
        text = _json_report(view, shown, stored, diffs)
    else:
        text = render_text(view, shown, diffs)
    sys.stdout.write(text)
    sys.stdout.flush()
    return int(ExitCode.OK)


def _named(view: PlaybookView, shown: list[Entry], targets: Sequence[str]) -> list[Entry]:
    """The entries of the targets named; a name that is no target ends the command (exit 1)."""
    known = {e.target_id for e in view.entries}
    for name in targets:
        if name not in known:
            raise VContextError(
                f"no target {name!r} in this playbook{_closest(name, known)}",
                exit_code=ExitCode.FOUND,
            )
    wanted = set(targets)
    return [e for e in shown if e.target_id in wanted]


def _closest(name: str, known: set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=5, cutoff=0.5)
    return f" (closest: {', '.join(close)})" if close else ""


def _picture(
    view: PlaybookView, states: list[Any], shown: list[Entry], *, fmt: str, every: bool, name: str
) -> int:
    """The event graph as DOT or mermaid (exit 1 for a playbook that keeps no event log)."""
    if view.kind != "events":
        where = pointer(view.path) or "/"
        what = LOG_FORMS.get(view.kind, "no events")
        raise VContextError(
            f"the playbook at {where} holds {what}: no event graph to draw",
            exit_code=ExitCode.FOUND,
        )
    picture = playbook_picture(view, states, shown, every=every, name="" if name == "-" else name)
    text, warning = render(picture, fmt, name="playbook")
    if warning:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)
    write_output(None, text)
    return int(ExitCode.OK)


def dumps_one_per_line(out: dict[str, Any]) -> str:
    """Pretty at the top, one compact line per entry and anomaly.

    Readable and diffable, and fast: Python's JSON encoder is pure Python as soon
    as it indents, ten times slower than compact output for a big view.
    """
    encode = json.JSONEncoder(ensure_ascii=False).encode  # one encoder for every row
    lines = ["{"]
    items = list(out.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        head = f"  {encode(key)}: "
        if isinstance(value, list) and value:
            rows = [encode(v) for v in value]
            lines.append(head + "[\n    " + ",\n    ".join(rows) + "\n  ]" + comma)
        else:
            lines.append(head + encode(value) + comma)

    return escape_lone_surrogates("\n".join(lines) + "\n}\n")


def _json_report(
    view: PlaybookView, shown: list[Entry], stored: Any, diffs: list[tuple[str, Any, Any]]
) -> str:
    """PRODUCT.md's view JSON, plus the entry count before filters and the metrics check."""
    out = view.to_json(entries=shown)
    out["entryCount"] = len(view.entries)
    if isinstance(stored, dict):
        out["metrics"] = {
            "stored": stored,
            "agree": not diffs,
            "differences": [{"key": k, "stored": old, "recomputed": new} for k, old, new in diffs],
        }
    return dumps_one_per_line(out)


def load_document(file: str, rev: str | None = None) -> Document:
    """Parse FILE from the working tree, or as it was at revision REV (read with pygit2)."""
    if rev is None:
        return parse(read_bytes(file), path=None if file == "-" else file)

    path = Path(file)
    repo = gitio.open_repo(path.parent if str(path.parent) else ".")
    return parse(gitio.read_at(repo, rev, gitio.relative_to_top(repo, path)), path=file)
