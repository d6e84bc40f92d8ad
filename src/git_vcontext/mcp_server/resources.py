"""Resources: seed 003's URIs over the served documents (listings, files, the playbook view)."""

from __future__ import annotations

from typing import Any

from ..codecs import dumps
from ..errors import Refused
from ..record import record
from ..values import json_report
from .catalog import NOUN, SEGMENT, Entry
from .service import Service
from .store import Loaded
from .tools.playbooks import view
from .uris import parse

JSON = "application/json"
TRON = "text/x-tron"
MIME = {"json": JSON, "tron": TRON}
LISTING_KEYS = {"todoList": "todoLists", "plan": "plans", "playbook": "playbooks"}


@record
class Listed:
    """One resource as ``resources/list`` shows it."""

    uri: str
    name: str
    description: str
    mime: str


@record
class Templated:
    """One resource template (``resources/templates/list``)."""

    template: str
    name: str
    description: str
    mime: str


TEMPLATES = (
    Templated(
        "vbrief://todos/{id}",
        "todo list",
        "A TodoList document by id, as JSON (?format=tron: as TRON)",
        "application/json",
    ),
    Templated("vbrief://plans/{id}", "plan", "A Plan document by id", "application/json"),
    Templated(
        "vbrief://playbooks/{id}",
        "playbook document",
        "A playbook document by id",
        "application/json",
    ),
    Templated(
        "vbrief://playbook/{category}",
        "playbook section",
        "The current playbook's active entries of one category (strategies, decisions, "
        "patterns, gotchas) or kind (strategy, learning, rule, warning, note)",
        "application/json",
    ),
)


def listed(svc: Service) -> list[Listed]:
    """The collections, the current documents, the playbook view, and every document."""
    out: list[Listed] = []
    for kind in ("todoList", "plan"):
        seg = SEGMENT[kind]
        out.append(
            Listed(
                f"vbrief://{seg}",
                f"All {NOUN[kind]}s",
                f"Every {NOUN[kind]} served here (id, uri, path, sequence)",
                "application/json",
            )
        )
        current = svc.catalog.current(kind)
        if current is not None:
            out.append(
                Listed(
                    f"vbrief://{seg}/current",
                    f"Current {NOUN[kind]}",
                    f"{current.rel} ({current.id})",
                    JSON,
                )
            )
    out.append(
        Listed(
            "vbrief://playbook",
            "Project Playbook",
            "The current playbook's view: one entry per targetId, heads resolved",
            "application/json",
        )
    )
    out.append(
        Listed(
            "vbrief://playbooks",
            "All playbooks",
            "Every playbook document served here",
            "application/json",
        )
    )
    out += [_document(e) for e in svc.catalog.entries()]
    return out


def _document(e: Entry) -> Listed:
    name = e.title or f"{NOUN[e.kind]} {e.id}"
    return Listed(e.uri, name, f"{NOUN[e.kind]} in {e.rel} ({e.format})", JSON)


def read(svc: Service, uri: str) -> tuple[str, str]:
    """The text of a resource and its mime type (its first content: JSON unless the URI
    asks for ``?format=tron``); Refused when there is no such resource."""
    return contents(svc, uri)[0]


def contents(svc: Service, uri: str) -> list[tuple[str, str]]:
    """A resource's contents, (text, mime type) each: always JSON (no BOM, whatever the
    file's format: a client can ``json.loads`` it), and a TRON document's own text after
    it; ``?format=tron`` gives that text alone, ``?format=json`` the JSON alone."""
    address = parse(uri)
    if address.what == "list":
        return [(_listing(svc, address.kind), JSON)]
    if address.what == "view":
        return [(_view(svc, address.id), JSON)]
    entry = svc.document(address.kind, address.id)
    loaded = svc.catalog.store.load(entry.rel, entry.real)
    if loaded is None:
        raise Refused("gone", f"{entry.rel} no longer exists")
    raw = loaded.raw.decode("utf-8", "replace")
    if address.format == "tron":
        if entry.format == "tron" or loaded.doc is None:
            return [(raw.removeprefix("\ufeff"), TRON)]
        return [(dumps(loaded.data, "tron"), TRON)]
    out = [(_as_json(entry, loaded, raw), JSON)]
    if address.format is None and entry.format == "tron":
        out.append((raw.removeprefix("\ufeff"), TRON))
    return out


def _as_json(entry: Entry, loaded: Loaded, raw: str) -> str:
    """The document as JSON text: a JSON file's own text (its layout kept, no BOM), TRON
    as JSON; a file that does not parse as an object naming the error, with its text."""
    if loaded.doc is None:
        return json_report({"path": entry.rel, "error": loaded.error, "text": raw})
    if entry.format == "json":
        return raw.removeprefix("\ufeff")
    return dumps(loaded.data, "json")


def _listing(svc: Service, kind: str) -> str:
    current = svc.catalog.current(kind)
    entries = [e.summary() for e in svc.catalog.entries(kind)]
    out: dict[str, Any] = {LISTING_KEYS[kind]: entries, "current": current.id if current else None}
    return json_report(out)


def _view(svc: Service, kind: str | None) -> str:
    args: dict[str, Any] = {"kind": kind} if kind else {}
    return json_report(view(svc, args).data)
