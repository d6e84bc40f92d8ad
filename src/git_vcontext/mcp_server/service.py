"""What the tools share: options, the documents by kind and id, stamps, and the writer."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..branches.commits import SAID as DROP_TRAILER  # the trailer says_drop reads
from ..branches.commits import listed_name, said_line
from ..clock import now_rfc3339
from ..edits.stamp import Stamp, Unchanged
from ..errors import Refused
from ..record import record
from ..sync.advice import PERSON
from .catalog import NOUN, SEGMENT, Catalog, Entry
from .files import CONVENTIONAL, NOT_ROUTED, inside
from .gitside import DEFAULT_AGENT, GitSide
from .writer import Target, Writer, Written

WRITABLE = {"todos": "todoList", "plans": "plan", "playbook": "playbook"}
"""``--allow`` names and the kinds they let the server write."""

NEW_DOCUMENTS = {"todoList": ".vcontext/todo", "playbook": ".vcontext/playbook"}
"""Where a kind's first document goes, before its format's extension."""
NEW_FORMATS = ("json", "tron")
MAKES = {
    "todoList": "vbrief_create_todo",
    "plan": "vbrief_create_plan",
    "playbook": "vbrief_add_learning",
}
"""The tool that makes a kind's first document."""


@dataclass(frozen=True)
class Options:
    """How the server was started (``git vcontext mcp ...``)."""

    root: str
    agent: str | None = None
    read_only: bool = False
    allow: frozenset[str] = frozenset(WRITABLE.values())
    commit: bool = False
    pinned: dict[str, str] = field(default_factory=dict)  # kind -> rel path of "current"
    alone: bool = False  # the folder's own documents and .vcontext/ only (no repository)


@record
class Answer:
    """A tool's result: text for people and models, the same facts as structured data."""

    text: str
    data: dict[str, Any]
    error: bool = False  # the call did not do what was asked (e.g. a sync stopped)


class Service:
    """The server's state behind the tools, resources and prompts (no MCP types here)."""

    def __init__(
        self, options: Options, catalog: Catalog, writer: Writer, git: GitSide | None
    ) -> None:
        self.options = options
        self.catalog = catalog
        self.writer = writer
        self.git = git

    # -- who and when --------------------------------------------------------------

    def agent(self) -> str:
        if self.git is not None:
            return self.git.agent()
        return self.options.agent or DEFAULT_AGENT

    def resolver(self) -> dict[str, Any]:
        """Who settles conflicts through this server (``resolvedBy``, a revert's agent):
        its own agent, never ``GIT_VCONTEXT_AGENT`` read behind its back (``--agent`` wins)."""
        return {"id": self.agent(), "type": "aiAgent"}

    def stamp(self) -> Stamp:
        return Stamp(self.agent(), now_rfc3339())

    @staticmethod
    def entropy() -> str:
        """Randomness for fresh ids: two agents never make the same one."""
        return secrets.token_hex(8)

    # -- documents -----------------------------------------------------------------

    def document(self, kind: str, doc_id: str | None) -> Entry:
        """The document of ``kind`` named ``doc_id`` (None or 'current': the current one)."""
        if doc_id is None or doc_id == "current":
            found = self.catalog.current(kind)
            if found is None:
                make = MAKES.get(kind)
                writable = not self.options.read_only and kind in self.options.allow
                hint = f" ({make} makes one)" if make and writable else ""
                raise Refused("no-document", f"there is no {NOUN[kind]} here yet{hint}")
            return found
        found = self.catalog.find(kind, doc_id)
        if found is None:
            raise Refused("unknown-id", unknown_document(kind, doc_id, self.catalog))
        return found

    def target(self, entry: Entry) -> Target:
        return Target(entry.rel, entry.real, entry.format)

    def new_target(self, kind: str, rel: str, new: Callable[[], Any]) -> Target:
        """Where a new document of ``kind`` goes (never outside the served root)."""
        full = os.path.join(self.catalog.root, *rel.split("/"))
        folder = inside(self.catalog.root, os.path.dirname(full))
        if folder is None:
            raise Refused("outside", f"{rel}: its folder leads outside {self.catalog.root}")
        real = os.path.join(folder, os.path.basename(full))
        why = self.catalog.refuses(rel)
        if why is not None:  # one rule for reading and creating: nothing written unread
            raise Refused(
                "not-served",
                f"{rel}: {why}, so a document there would not be served; nothing written"
                + self._way_to_route(rel, why),
            )
        fmt = "tron" if rel.endswith(".tron") else "json"
        return Target(rel, real, fmt, new)

    def _way_to_route(self, rel: str, why: str) -> str:
        """The person's step when a new document's place is one git does not route to the
        driver (a served root below the top: install's ``.vcontext/`` lines name the
        top's): the line that routes it, so the merge, ``validate`` and the hook take it
        as the server would, or the top served."""
        if why != NOT_ROUTED:
            return ""
        line = self.catalog.rule.route_line(rel)
        route = (
            f"add the line '{line}' to the .gitattributes at the repository's top and commit it"
            if line is not None
            else "route it to the vcontext driver in the .gitattributes at the repository's top"
        )
        return f" ({PERSON}{route}, or serve the repository's top)"

    def new_format(self) -> str:
        """The format of new documents: ``VCONTEXT_FORMAT``, else git config
        ``vcontext.format``, else JSON (anything else is refused, naming where it was set)."""
        where, value = "VCONTEXT_FORMAT", os.environ.get("VCONTEXT_FORMAT")
        if not value and self.git is not None:
            where, value = "git config vcontext.format", self.git.config("vcontext.format")
        if not value:
            return "json"
        if value.strip().lower() not in NEW_FORMATS:
            raise Refused(
                "bad-config", f"{where} is {value!r}: use json or tron (or unset it for JSON)"
            )
        return value.strip().lower()

    def default_target(self, kind: str, new: Callable[[], Any]) -> Target:
        """The current document's target, or the new document's when there is none."""
        found = self.catalog.current(kind)
        if found is not None:
            return self.target(found)
        rel = self.options.pinned.get(kind)
        if rel is None:
            rel = f"{NEW_DOCUMENTS[kind]}.{self.new_format()}"
            self._none_beside(kind, rel)
        return self.new_target(kind, rel, new)

    def _none_beside(self, kind: str, new: str) -> None:
        """Refuse to make a kind's first document at ``new`` when a file is at another of
        its conventional paths that the server does not serve as that kind (not one, or
        not a document it reads): a second ``.vcontext/playbook.json`` beside a
        ``.vcontext/playbook.tron`` would split the agents' memory in two. (A file at
        ``new`` itself: the write's own checks refuse it, a link leading out among them.)"""
        for rel in CONVENTIONAL[kind]:
            if rel != new and os.path.lexists(os.path.join(self.catalog.root, *rel.split("/"))):
                raise Refused(
                    "not-served",
                    f"{rel} is there but is not served as a {NOUN[kind]}: nothing written "
                    f"beside it; {PERSON}see why (git vcontext validate {rel}), then mend "
                    "it or move it away",
                )

    def target_of(self, kind: str, doc_id: str | None, new: Callable[[], Any]) -> Target:
        """The document named, else the current one, else a new one made by ``new``."""
        if doc_id is not None:
            return self.target(self.document(kind, doc_id))
        return self.default_target(kind, new)

    def apply(
        self, tool: str, target: Target, edit: Callable[[Any, bool], Any]
    ) -> tuple[Any, dict[str, Any]]:
        """Write one todo or plan edit; the outcome and its structured answer (``Unchanged``,
        naming the document, when the edit changes nothing)."""
        try:
            outcome, written = self.writer.write(target, edit, self.message(tool, target.rel))
        except Unchanged as exc:
            exc.rel = target.rel
            raise
        return outcome, self.outcome(outcome, target.rel, written)

    def edit(
        self,
        tool: str,
        entry: Entry,
        args: dict[str, Any],
        change: Callable[..., Any],
        *given: Any,
        **options: Any,
    ) -> tuple[Any, dict[str, Any]]:
        """Write one edit of a todo list or plan, ``change(data, *given, stamp, expected=...,
        **options)``: this call's stamp, the tool's ``expectedSequence``; the outcome and its
        structured answer."""
        stamp, expected = self.stamp(), args.get("expectedSequence")
        return self.apply(
            tool,
            self.target(entry),
            lambda data, strict: change(
                data, *given, stamp, expected=expected if strict else None, **options
            ),
        )

    def remove(
        self,
        tool: str,
        entry: Entry,
        check: Callable[[Any], None],
        description: Callable[[], str],
    ) -> dict[str, Any]:
        """Delete a whole document (``check(data)`` refuses what may not go, ``description()``
        then says what went); its commit carries the ``Vcontext-Drop:`` trailer."""
        agent = self.agent()

        def message() -> str:
            what = description()
            return (
                f"vcontext mcp: {subject(what)}\n\nTool: {tool}\nAgent: {agent}\n"
                f"Document: {listed_name(entry.rel)}\n" + dropped(f"{what} ({tool})")
            )

        written = self.writer.remove(self.target(entry), check, message)
        out: dict[str, Any] = {"id": entry.id, "deleted": True}
        out.update(self.written(entry.rel, entry.kind, written))
        return out

    def may_write(self, kind: str | None) -> None:
        if self.options.read_only:
            raise Refused("read-only", "this server is read-only (--read-only)")
        if kind is not None and kind not in self.options.allow:
            allowed = ", ".join(k for k, v in WRITABLE.items() if v in self.options.allow)
            raise Refused(
                "not-allowed", f"writing {SEGMENT[kind]} is not allowed here (--allow {allowed})"
            )

    def message(self, tool: str, rel: str) -> Callable[[Any], str]:
        """The commit message of a write: the Change's description, then tool, agent, file."""
        agent = self.agent()
        return lambda o: (
            f"vcontext mcp: {subject(o.change.description)}\n\n"
            f"Tool: {tool}\nAgent: {agent}\nDocument: {listed_name(rel)}\n"
            + (dropped(f"{o.change.description} ({tool})") if _deletes(o) else "")
        )

    def outcome(self, outcome: Any, rel: str, written: Written) -> dict[str, Any]:
        """The structured answer of a todo or plan write: id, item, sequence, Change, where."""
        kind = outcome.change.path[0]
        container = outcome.data[kind]
        out: dict[str, Any] = {"id": outcome.item_id}
        if outcome.item is not None:
            out["item"] = outcome.item
        out["sequence"] = container["sequence"]
        out["change"] = container["changeLog"][-1]
        out.update(self.written(rel, kind, written))
        return out

    def written(self, entry_rel: str, kind: str, written: Written) -> dict[str, Any]:
        """The part of a write's answer that says where it went and what git made of it."""
        entry = self.catalog.fresh_rel(kind, entry_rel)
        out: dict[str, Any] = {"document": entry.summary() if entry else {"path": entry_rel}}
        if written.created:
            out["created"] = True
        if written.commit is not None:
            if written.commit.commit is not None:
                out["commit"] = written.commit.commit
            if written.commit.note:
                out["notes"] = [written.commit.note]
        return out


def _deletes(outcome: Any) -> bool:
    return bool(outcome.change.operation == "delete")


def subject(text: str, limit: int = 120) -> str:
    """A commit subject made of an agent's words (a title, a targetId): one line (a line
    break would start the body, where ``Title\n\nVcontext-Drop: x`` wrote the trailer that
    lets a commit drop records: only a deletion's ``dropped`` may say it), that trailer's
    word defused, at most ``limit`` characters (a 200 kB title made a 200 kB subject)."""
    flat = said_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def dropped(why: str) -> str:
    """The trailer of a commit that deletes records on purpose: sync's check for commits
    made on files an interrupted sync left behind (``prepush/undone``) lets it through."""
    return f"{DROP_TRAILER} {' '.join(why.split())}\n"


def unknown_document(kind: str, doc_id: str, catalog: Catalog) -> str:
    """Why an id names no document: a path is never an id; else the ids there are."""
    if "/" in doc_id or "\\" in doc_id or ".." in doc_id or doc_id.startswith("~"):
        return f"{doc_id!r} is not a {NOUN[kind]} id (ids are names, never paths)"
    known = [e.id for e in catalog.entries(kind)]
    listed = f": known ids are {', '.join(known[:10])}" if known else f": there is no {NOUN[kind]}"
    return f"no {NOUN[kind]} with id {doc_id!r}{listed}"


def sequenced(text: str, out: dict[str, Any]) -> Answer:
    """The answer of a todo or plan write: ``text``, the new sequence, the commit."""
    return Answer(f"{text} (sequence {out['sequence']}){committed_text(out)}", out)


def committed_text(data: dict[str, Any]) -> str:
    """`` (committed abc123def456)`` or a note, for a write's one-line answer."""
    parts = []
    if data.get("commit"):
        parts.append(f"committed {data['commit'][:12]}")
    parts += data.get("notes", [])
    return f" ({'; '.join(parts)})" if parts else ""
