"""Rules on one container: changeLog sequences, fork consistency, dependencies (Ext 4, 10, 11),
narratives in the older object form (a note)."""

from __future__ import annotations

from .rules import walk_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from .model import Issue, Parts

BLOCKING_EDGES = (None, "blocks")
"""Edge types (vBRIEF ``edges``) that order work, so may not form a cycle; ``informs`` may."""


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_changelog(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    """Sequences in ``changeLog`` never decrease and never pass the container's ``sequence``."""
    log = container.get("changeLog")
    if not isinstance(log, list):
        return
    top: Any = container.get("sequence")
    previous: Any = None
    for i, change in enumerate(log):
        seq: Any = change.get("sequence") if isinstance(change, dict) else None
        if not _number(seq):
            continue
        parts = (*where, "changeLog", i, "sequence")
        if previous is not None and seq < previous:
            msg = f"sequence {seq} follows {previous}; changeLog sequences must not decrease"
            yield "changelog-sequence", parts, msg
        if _number(top) and seq > top:
            msg = f"sequence {seq} is above the container's sequence {top}; raise that to {seq}"
            yield "changelog-sequence", parts, msg
        previous = seq if previous is None else max(previous, seq)


def check_fork(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    """``fork.parentSequence`` not negative; ``mergeStatus`` agrees with the recorded conflicts."""
    fork = container.get("fork")
    if not isinstance(fork, dict):
        return
    here = (*where, "fork")
    parent: Any = fork.get("parentSequence")
    if _number(parent) and parent < 0:
        msg = f"parentSequence {parent} is negative; use the parent's sequence when forked (>= 0)"
        yield "fork-parent-sequence", (*here, "parentSequence"), msg
    yield from _merge_status(fork, here)


def _merge_status(fork: dict[str, Any], here: Parts) -> Iterator[Issue]:
    status = fork.get("mergeStatus")
    resolution = fork.get("conflictResolution")
    conflicts = resolution.get("conflicts") if isinstance(resolution, dict) else None
    statuses = [c.get("status") for c in conflicts or () if isinstance(c, dict)]
    open_ = sum(s == "unresolved" for s in statuses)
    at = (*here, "mergeStatus")
    if status == "conflict" and not open_:
        msg = (
            'mergeStatus is "conflict" but conflictResolution lists no unresolved conflict; '
            'record the conflicts or set mergeStatus to "mergePending" or "merged"'
        )
        yield "fork-merge-status", at, msg
    elif open_ and status != "conflict":
        shown = "missing" if status is None else f'"{status}"'
        msg = (
            f"{open_} unresolved conflict(s) in conflictResolution but mergeStatus is {shown}; "
            'resolve them or set mergeStatus to "conflict"'
        )
        yield "fork-merge-status", at if status is not None else here, msg


def check_dependencies(
    container: dict[str, Any], where: Parts, items: list[tuple[Parts, dict[str, Any]]] | None = None
) -> Iterator[Issue]:
    """``dependencies`` and ``edges`` name ids of this container and form no cycle; ``items``:
    ``walk_items``'s, when walked already."""
    if items is None:
        items = list(walk_items(container, where))
    ids = {item["id"] for _, item in items if isinstance(item.get("id"), str)}
    deps = Dependencies()
    for parts, item in items:
        at = (*parts, "dependencies")
        for dep, place in deps.references(item.get("id"), item.get("dependencies"), at, ids):
            yield _missing(dep, place)
    yield from _edges(container, where, ids, deps)
    yield from deps.cycles(where)


class Dependencies:
    """Which ids must finish before which (id -> ids), with where each id's first one is named."""

    def __init__(self) -> None:
        self.graph: dict[str, list[str]] = {}
        self.first_at: dict[str, Parts] = {}

    def add(self, ident: str, before: str, at: Parts) -> None:
        self.graph.setdefault(ident, []).append(before)
        self.first_at.setdefault(ident, at)

    def references(
        self, ident: Any, refs: Any, at: Parts, ids: set[str]
    ) -> Iterator[tuple[str, Parts]]:
        """The strings of the list ``refs`` (at ``at``) that are not in ``ids``, with their
        places; the others are added as what ``ident`` (when it is an id) waits for."""
        if not isinstance(refs, list):
            return
        for j, ref in enumerate(refs):
            if not isinstance(ref, str):
                continue
            if ref not in ids:
                yield ref, (*at, j)
            elif isinstance(ident, str):
                self.add(ident, ref, at)

    def cycles(self, where: Parts) -> Iterator[Issue]:
        return find_cycles(self.graph, self.first_at, where)


def _edges(
    container: dict[str, Any], where: Parts, ids: set[str], deps: Dependencies
) -> Iterator[Issue]:
    edges = container.get("edges")
    if not isinstance(edges, list):
        return
    for i, edge in enumerate(edges):
        if not isinstance(edge, dict):
            continue
        ends = [(k, edge.get(k)) for k in ("from", "to")]
        bad = [(k, v) for k, v in ends if isinstance(v, str) and v not in ids]
        for key, value in bad:
            yield _missing(value, (*where, "edges", i, key))
        src, dst = edge.get("from"), edge.get("to")
        ordering = edge.get("type") in BLOCKING_EDGES
        if ordering and not bad and isinstance(src, str) and isinstance(dst, str):
            deps.add(dst, src, (*where, "edges", i))


def _missing(dep: str, parts: Parts) -> Issue:
    msg = f'"{dep}" is not the id of an item in this container; fix the reference or add the item'
    return "dependency-missing", parts, msg


def find_cycles(
    graph: dict[str, list[str]], first_at: dict[str, Parts], where: Parts
) -> Iterator[Issue]:
    """One finding per cycle found by a depth-first search (iterative, so no recursion limit)."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    for root in sorted(graph):
        if state.get(root):
            continue
        path: list[str] = []
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            nexts = graph.get(node, [])
            if i < len(nexts):
                stack.append((node, i + 1))
                nxt = nexts[i]
                if state.get(nxt) == 1:
                    loop = [*path[path.index(nxt) :], nxt]
                    shown = " -> ".join(reversed(loop))
                    msg = f"dependency cycle {shown}; remove one of these dependencies"
                    yield "dependency-cycle", first_at.get(nxt, where), msg
                elif not state.get(nxt):
                    stack.append((nxt, 0))
            else:
                state[node] = 2
                path.pop()


def check_narratives(container: dict[str, Any], where: Parts) -> Iterator[Issue]:
    """A plan narrative written as a ``{title, content}`` object: accepted — the older form
    seed 001's own plan example still uses — with a note suggesting the string form."""
    narratives = container.get("narratives")
    if not isinstance(narratives, dict):
        return
    for key, value in narratives.items():
        if isinstance(value, dict) and isinstance(value.get("content"), str):
            msg = (
                f"narrative {key!r} is a {{title, content}} object, the older form (accepted); "
                f"the string form is preferred: write its content as the value of {key!r}"
            )
            yield "narrative-object", (*where, "narratives", key), msg


PROPOSAL = "proposal"


def check_proposal(plan: dict[str, Any], where: Parts) -> Iterator[Issue]:
    """A plan holds ``narratives.proposal``, the proposed solution (seed 000's Plan: "proposal:
    string (required)"). The key is read as the spec's standard narrative keys are written
    (``proposal``, or ``Proposal`` as items write them); the older ``{title, content}`` form
    counts; an empty or blank value does not."""
    narratives = plan.get("narratives")
    if not isinstance(narratives, dict):
        at, why = where, "it has no narratives"
    else:
        keys = [k for k in narratives if isinstance(k, str) and k.lower() == PROPOSAL]
        if any(has_content(narratives[k]) for k in keys):
            return
        if keys:
            at, why = (*where, "narratives", keys[0]), f"narratives.{keys[0]} is empty"
        else:
            at, why = (*where, "narratives"), "its narratives have no proposal"
    msg = (
        f"a plan needs narratives.proposal, the proposed solution (required by vContext "
        f'0.4), and {why}; add e.g. "proposal": "what the plan will do"'
    )
    yield "plan-proposal", at, msg


def has_content(value: Any) -> bool:
    """Whether a narrative value says something: a non-blank string, or the older
    ``{title, content}`` object with a non-blank content."""
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, dict):
        content = value.get("content")
        return isinstance(content, str) and bool(content.strip())
    return False
