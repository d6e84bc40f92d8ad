"""The fork block after a sync: ``mergeStatus: "merged"``, ``mergedAt``, ``mergedBy`` (Ext 11)."""

from __future__ import annotations

import json

from .. import document as doc
from ..codecs import parse
from ..errors import ParseError
from ..merging.vcontext import same_family
from ..spelling import float_of
from ..values import same

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pygit2 import Signature

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
    try:
        parsed = parse(raw, path=path)
    except ParseError:
        return raw
    new = marked_merged(parsed.data, when=when, by=by, refresh=refresh)
    if new is None:
        return raw
    return parsed.render(new).encode("utf-8")


def merger_agent(committer: Signature | None, agent: str | None = None) -> dict[str, Any]:
    """``mergedBy``: who ran the sync, as an Ext 10 Agent: the agent (``aiAgent``) when one
    ran it, else the person of git's identity (``human``). ``system`` is git-vcontext's own
    (M8's ``merge`` entries), never a person's."""
    if agent:
        return {"id": agent, "type": "aiAgent"}
    assert committer is not None  # without an agent, git's identity names the person
    email = committer.email
    return {"id": email, "type": "human", "name": committer.name, "email": email}


def carried_fork(
    ours: Any, theirs: Any, *, mark: tuple[str, dict[str, Any], bool] | None = None
) -> Any:
    """Theirs' data with ours' fork blocks (M11 when ours' tree is the merge base).

    Merging the base into an agent branch whose own state is the merge base gives
    the base's data; M11 keeps ours' ``fork`` in each container, with
    ``parentSequence`` set to theirs' ``sequence`` when ours is a fork of theirs.
    ``mark`` = (when, by, refresh) also marks the forks merged. The fork keeps its
    place among the container's keys.
    """
    forks = forks_of(ours)
    if not forks or not isinstance(theirs, dict):
        return theirs
    new = dict(theirs)
    for key, fork in forks.items():
        parent = new.get(key)
        if not isinstance(parent, dict):
            continue
        fork = dict(fork)
        uid = parent.get("uid")
        child = uid is not None and fork.get("parentUid") == uid
        if child and doc.SEQUENCE_FIELD in parent and not same_family(ours[key], parent):
            fork["parentSequence"] = parent[doc.SEQUENCE_FIELD]
        if mark is not None:
            when, by, refresh = mark
            if refresh or fork.get("mergeStatus") != MERGED:
                fork.update({"mergeStatus": MERGED, "mergedAt": when, "mergedBy": by})
        new[key] = _placed_like(ours[key], parent, fork)
    return new


def _placed_like(ours: dict[str, Any], theirs: dict[str, Any], fork: Any) -> dict[str, Any]:
    """``theirs`` with ``fork`` after the key it follows in ``ours`` (first if it leads)."""
    keys = list(ours)
    at = keys.index(doc.FORK_FIELD)
    after = keys[at - 1] if at > 0 else None
    out: dict[str, Any] = {doc.FORK_FIELD: fork} if after is None else {}
    for k, v in theirs.items():
        if k == doc.FORK_FIELD:
            continue
        out[k] = v
        if k == after:
            out[doc.FORK_FIELD] = fork
    out.setdefault(doc.FORK_FIELD, fork)
    return out


def agent_document(
    ours: bytes, theirs: bytes, path: str, *, mark: tuple[str, dict[str, Any], bool] | None
) -> bytes | None:
    """The agent's document after the base's ``theirs`` is merged into it (see carried_fork):
    for JSON theirs' text with ours' fork blocks, so the branches differ in nothing else.
    None when it cannot be done here (unreadable, or the result did not read back)."""
    try:
        o_doc, t_doc = parse(ours, path=path), parse(theirs, path=path)
    except ParseError:
        return None
    new = carried_fork(o_doc.data, t_doc.data, mark=mark)
    if same(new, o_doc.data):
        return ours
    if new is t_doc.data:
        return theirs
    # JSON: theirs' text plus the fork (cheap; unchanged parts are copied). TRON: ours'
    # text, so the agent's document keeps its classes (its Fork class among them).
    template = o_doc if o_doc.format == "tron" else t_doc
    raw = template.render(new).encode("utf-8")
    return raw if _reads_back(raw, new, template.format, path) else None


def _reads_back(raw: bytes, expected: Any, fmt: str, path: str) -> bool:
    """Whether ``raw`` parses to ``expected`` (JSON: the C parser is enough to check that,
    given the spelling of floats, which tells 3.14159265358979323 from 3.141592653589793)."""
    if fmt == "json":
        try:
            return same(json.loads(raw.decode("utf-8-sig"), parse_float=float_of), expected)
        except ValueError:
            return False
    try:
        return same(parse(raw, path=path).data, expected)
    except ParseError:
        return False
