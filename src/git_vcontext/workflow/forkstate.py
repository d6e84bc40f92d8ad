"""The fork block after a sync: ``mergeStatus: "merged"``, ``mergedAt``, ``mergedBy`` (Ext 11)."""

from __future__ import annotations

from .. import document as doc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MERGED = "merged"


def forks_of(data: Any) -> dict[str, dict[str, Any]]:
    """``{container key: fork block}`` of a parsed document."""
    if not isinstance(data, dict):
        return {}
    found = {}
    for key in doc.CONTAINER_KEYS:
        container = data.get(key)
        if isinstance(container, dict) and isinstance(container.get(doc.FORK_FIELD), dict):
            found[key] = container[doc.FORK_FIELD]
    return found


def marked_merged(data: Any, *, when: str, by: dict[str, Any], refresh: bool) -> Any | None:
    """``data`` with every fork block marked merged; None when nothing changes.

    ``refresh`` False marks only forks not yet merged (their work reached the parent
    with the others'); True also moves ``mergedAt``/``mergedBy`` of merged ones
    (this document's changes were merged just now).
    """
    forks = forks_of(data)
    if not forks:
        return None
    new = dict(data)
    changed = False
    for key, fork in forks.items():
        if fork.get("mergeStatus") == MERGED and not refresh:
            continue
        updated = {**fork, "mergeStatus": MERGED, "mergedAt": when, "mergedBy": by}
        if updated != fork:
            new[key] = {**data[key], doc.FORK_FIELD: updated}
            changed = True
    return new if changed else None


def mark_merged(raw: bytes, path: str, *, when: str, by: dict[str, Any], refresh: bool) -> bytes:
    """A document's bytes with its forks marked merged, in its own style (``raw`` if unchanged)."""
    from ..codecs import parse
    from ..errors import ParseError

    try:
        parsed = parse(raw, path=path)
    except ParseError:
        return raw
    new = marked_merged(parsed.data, when=when, by=by, refresh=refresh)
    if new is None:
        return raw
    return parsed.render(new).encode("utf-8")


def merger_agent(committer: Any) -> dict[str, Any]:
    """``mergedBy``: the identity that ran the sync, as an Ext 10 Agent of type system."""
    return {"id": committer.email, "type": "system", "name": committer.name}
