"""Seed 003's resource URIs, parsed: nothing a client sends is ever used as a path."""

from __future__ import annotations

from typing import Literal
from urllib.parse import unquote

from ..edits.learnings import CATEGORIES
from ..errors import Refused
from ..record import record

SCHEME = "vbrief://"
KIND_OF = {"todos": "todoList", "plans": "plan", "playbooks": "playbook"}
VIEW_KINDS = {
    "strategy": "strategy",
    "strategies": "strategy",
    "learning": "learning",
    "learnings": "learning",
    "rule": "rule",
    "rules": "rule",
    "warning": "warning",
    "warnings": "warning",
    "note": "note",
    "notes": "note",
    **CATEGORIES,
}
"""``vbrief://playbook/{kind}``: the seed says "category" (``strategies``, ``decisions``,
``patterns``, ``gotchas``); entry kinds and their plurals are read too."""
FORMATS = ("json", "tron")


@record
class Address:
    """What a URI designates: a listing, a document (``id`` None = current), or the view."""

    what: Literal["list", "document", "view"]
    kind: str  # todoList | plan | playbook
    id: str | None = None  # a document id, or the entry kind of a view
    uri: str = ""
    format: str | None = None  # ?format=json|tron (a document's text in that format)


def parse(uri: str) -> Address:
    """The address of a ``vbrief://`` URI; Refused for anything else."""
    if not uri.startswith(SCHEME):
        raise Refused("unknown-uri", f"{uri!r} is not a vbrief:// resource")
    rest, _, query = uri[len(SCHEME) :].partition("?")
    fmt = _format(query, uri)
    head, sep, tail = rest.partition("/")
    if head == "playbook":
        if not sep:
            return Address("view", "playbook", None, uri)
        kind = VIEW_KINDS.get(unquote(tail))
        if kind is None:
            raise Refused(
                "unknown-uri",
                f"no playbook category or kind {tail!r}: use one of strategies, decisions, "
                "patterns, gotchas (or strategy, learning, rule, warning, note)",
            )
        return Address("view", "playbook", kind, uri)
    if head not in KIND_OF:
        raise Refused(
            "unknown-uri",
            f"unknown resource {uri}: see vbrief://todos, "
            "vbrief://plans, vbrief://playbooks, vbrief://playbook",
        )
    if not sep:
        return Address("list", KIND_OF[head], None, uri)
    doc_id = unquote(tail)
    if not doc_id or "/" in doc_id or "\\" in doc_id or ".." in doc_id or "\0" in doc_id:
        raise Refused("unknown-uri", f"{tail!r} is not a document id (ids are names, never paths)")
    found = None if doc_id == "current" else doc_id
    return Address("document", KIND_OF[head], found, uri, fmt)


def _format(query: str, uri: str) -> str | None:
    """``format=json`` or ``format=tron`` (the only query a document's URI takes)."""
    if not query:
        return None
    name, _, value = query.partition("=")
    if name != "format" or value not in FORMATS:
        raise Refused("unknown-uri", f"{uri}: the only query is ?format=json or ?format=tron")
    return value
