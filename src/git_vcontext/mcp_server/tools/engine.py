"""``vcontext_diff``, ``vcontext_validate``, ``vcontext_status``, ``vcontext_sync``: the engine."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from ...diffing.files import compare
from ...diffing.report import render_files
from ...errors import Refused
from ...filechange import FileChange
from ...sync.status import base_tracking, listed, status_and_clashes, table
from ...validation.model import FileReport, Finding, with_case_notes
from ..catalog import Entry
from ..service import Answer, Service
from ..store import report_of
from ..uris import parse

if TYPE_CHECKING:
    from pygit2 import Repository

    from ...sync.status import AgentStatus, BaseTracking
    from ..gitside import GitSide


def documents(svc: Service, uri: str | None) -> list[Entry]:
    """The served documents a ``uri`` argument designates (none given: all of them)."""
    if uri is None:
        return svc.catalog.entries()
    address = parse(uri)
    if address.what == "list":
        return svc.catalog.entries(address.kind)
    return [svc.document(address.kind, address.id)]


def _git(svc: Service, tool: str) -> GitSide:
    if svc.git is None:
        raise Refused("no-git", f"{tool} needs a git repository; this folder is not in one")
    return svc.git


def diff(svc: Service, args: dict[str, Any]) -> Answer:
    git = _git(svc, "vcontext_diff")
    old_rev, new_rev = args.get("from", "HEAD"), args.get("to")
    files = []
    for entry in documents(svc, args.get("uri")):
        path = git.path_of(entry.real)
        if path is None:
            continue
        old = git.read_at(old_rev, path)
        new = git.read_at(new_rev, path) if new_rev else _disk(svc, entry)
        files.append(compare(FileChange.at(path, old, new)))
    shown = [f for f in files if f.differs]
    data = json.loads(render_files(shown, fmt="json"))
    against = f"{old_rev}..{new_rev}" if new_rev else f"{old_rev} and the files on disk"
    text = render_files(shown, fmt="text") or f"no differences between {against}\n"
    return Answer(text, data)


def _disk(svc: Service, entry: Entry) -> bytes | None:
    loaded = svc.catalog.store.load(entry.rel, entry.real)
    return None if loaded is None else loaded.raw


def validate(svc: Service, args: dict[str, Any]) -> Answer:
    reports = []
    for entry in documents(svc, args.get("uri")):
        loaded = svc.catalog.store.load(entry.rel, entry.real)
        if loaded is None:
            continue
        if loaded.doc is None:
            reason = (loaded.error or "").split(": ", 1)[-1]
            reports.append(FileReport(entry.rel, (Finding("parse", "", reason),)))
        else:
            reports.append(report_of(loaded))
    reports = _case_notes(svc, reports)
    invalid = [r for r in reports if not r.valid]
    lines = [line for r in reports for line in r.lines()]
    summary = (
        f"{len(invalid)} of {len(reports)} document(s) invalid"
        if invalid
        else f"{len(reports)} document(s) valid"
    )
    data = {"valid": not invalid, "files": [r.to_json() for r in reports]}
    return Answer("\n".join([*lines, summary]), data)


def _case_notes(svc: Service, reports: list[FileReport]) -> list[FileReport]:
    """The note ``git vcontext validate`` gives a file another tracked path differs from
    only in case (one file on a case-insensitive file system): the same note here."""
    git = svc.git
    if git is None or git.top is None or not reports:
        return reports
    top, root = git.top, svc.catalog.root
    return with_case_notes(
        reports,
        git.tracked(),
        lambda rel: git.path_of(os.path.join(root, *rel.split("/"))),
        lambda path: os.path.relpath(os.path.join(top, path), root).replace(os.sep, "/"),
    )


def status(svc: Service, args: dict[str, Any]) -> Answer:
    """As ``git vcontext status --format json``: in an agent's work tree the other agents
    only a remote has are left out unless ``all`` (``sync.status.listed``)."""
    git = _git(svc, "vcontext_status")
    own = None if args.get("all") else git.working_as()  # None: a person, every agent
    rows, tracking, unlisted = git.locked(lambda repo: _with_tracking(repo, own))
    data = {
        "agents": [r.to_json() for r in rows],
        "bases": [t.to_json() for t in tracking],
        "unlisted": unlisted,
    }
    return Answer("\n".join(table(rows, tracking, unlisted)), data)


def _with_tracking(
    repo: Repository, own: str | None
) -> tuple[list[AgentStatus], list[BaseTracking], list[str]]:
    """The rows (``own``: the agent this work tree is, whose clone leaves out the agents
    only a remote has), where their bases stand against their upstreams as last fetched
    (what ``git vcontext status`` says under its table), and the agents left out."""
    names, unlisted = listed(repo, own)
    rows = status_and_clashes(repo, names)[0]
    return rows, base_tracking(repo, rows), unlisted


def sync(svc: Service, args: dict[str, Any]) -> Answer:
    """``vcontext_sync`` (see ``tools/sync``: its conflicts are settled with tool calls)."""
    from .sync import sync as sync_tool

    return sync_tool(svc, args)
