"""Seed 003's resource URIs, parsed: nothing a client sends is ever used as a path."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from ..edits.stamp import Refused

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
}
"""``vbrief://playbook/{kind}``: the seed says "category", e.g. ``strategies``; both spellings."""


@dataclass(frozen=True)
class Address:
    """What a URI designates: a listing, a document (``id`` None = current), or the view."""

    what: str  # "list" | "document" | "view"
    kind: str  # todoList | plan | playbook
    id: str | None = None  # a document id, or the entry kind of a view
    uri: str = ""


def parse(uri: str) -> Address:
    """The address of a ``vbrief://`` URI; Refused for anything else."""
    if not uri.startswith(SCHEME):
        raise Refused("unknown-uri", f"{uri!r} is not a vbrief:// resource")
    rest = uri[len(SCHEME) :]
    head, sep, tail = rest.partition("/")
    if head == "playbook":
        if not sep:
            return Address("view", "playbook", None, uri)
        kind = VIEW_KINDS.get(unquote(tail))
        if kind is None:
            raise Refused(
                "unknown-uri",
                f"no playbook kind {tail!r}: use one of strategy, learning, rule, warning, note",
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
    return Address("document", KIND_OF[head], None if doc_id == "current" else doc_id, uri)
