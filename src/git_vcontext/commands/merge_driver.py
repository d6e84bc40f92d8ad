"""``git vcontext merge-driver %O %A %B -p %P -l %L``: the merge git runs for each file."""

from __future__ import annotations

import sys

from ..clock import now_rfc3339
from ..errors import ExitCode
from ..fsio import read_bytes, write_atomic
from ..merging.files import FileMerge, Writing, merge_files
from ..merging.result import MergeOptions
from ..merging.textmerge import Markers
from ..record import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..merging.result import Reverting


def run(
    *,
    base: str,
    ours: str,
    theirs: str,
    path: str | None = None,
    marker_size: int = 7,
    base_label: str | None = None,
    ours_label: str | None = None,
    theirs_label: str | None = None,
    conflict_style: str | None = None,
    virtual_base: bool = False,
) -> int:
    """Merge into ``ours`` (%A) in place; exit 0 when clean, 1 when conflicts remain.

    ``virtual_base``: git's inner merge of a criss-cross history (``install`` names this
    for ``merge.vcontext.recursive``): every conflict takes the base's value, exit 0.
    """
    raw = [read_bytes(p) for p in (base, ours, theirs)]
    if not virtual_base and _rerere(raw):
        return _rerere_merge(raw, ours, marker_size)
    options = MergeOptions(now=now_rfc3339(), path=path)
    judged: list[bool] = []  # what the replay probe answered, when it was asked
    if not virtual_base:  # a rebase step, cherry-pick or revert replays (M6, M8)
        options = replace(
            options,
            replay=None,
            replay_probe=_replay_probe(path, raw, judged),
            revert_probe=_revert_probe(path, raw, options.now or now_rfc3339()),
        )
    if virtual_base:  # never a conflict: a valid document for the outer merge (M16)
        outcome = merge_files(
            *raw, path=path, options=options, markers=Markers(marker_size), virtual_base=True
        )
    else:

        def writing() -> Writing:
            """Labels, style and favor matter only for conflicts: git's state and config
            are read then, not for every clean file of a merge."""
            from ..gitio.settings import merge_settings

            settings = merge_settings(conflict_style)
            warn(settings.warnings)
            labels = marker_labels(base_label, ours_label, theirs_label)
            markers = Markers(marker_size, labels[1], labels[0], labels[2], settings.diff3)
            return Writing(markers, settings.structured, settings.favor)

        outcome = merge_files(*raw, path=path, options=options, writing=writing)
    if outcome.output != raw[1]:
        write_atomic(ours, outcome.output, force=True)  # %A is git's file to replace
    if judged and path and not outcome.clean and not virtual_base:
        _record(path, raw, judged[0])
    describe(outcome, path or ours)
    return int(ExitCode.OK if outcome.clean or virtual_base else ExitCode.FOUND)


def _rerere(raw: list[bytes]) -> bool:
    """git's rerere replaying a recorded resolution: it merges the conflicted file it
    recorded (the "base", markers without labels) with the file holding this merge's
    markers (ours) and the resolution (theirs) through the file's driver. Only a line
    merge can do that; it is git's business, not a document merge to report on."""
    from ..codecs.text import holds_markers

    return bool(raw[0]) and holds_markers(raw[0]) and holds_markers(raw[1])


def _rerere_merge(raw: list[bytes], ours: str, marker_size: int) -> int:
    """The line merge git's own driver would make for rerere, quietly (git says what it
    did: "Resolved … using previous resolution")."""
    from ..merging.files import fallback

    outcome = fallback(raw[0], raw[1], raw[2], Markers(marker_size), None, [])
    if outcome.output != raw[1]:
        write_atomic(ours, outcome.output, force=True)
    blocks = any(r.endswith("conflicting line region(s)") for r in outcome.reasons)
    return int(ExitCode.FOUND if blocks else ExitCode.OK)


def _replay_probe(path: str | None, raw: list[bytes], judged: list[bool]) -> Callable[[], bool]:
    """Whether this merge is a replay, asked only when the merge needs to know (git's
    state, else ours' history: gitio.replay); the answer also goes into ``judged``."""

    def replay() -> bool:
        # lazy: most merges never ask, and gitio is not on the driver's light path
        from ..gitio.replay import is_replay

        judged[:] = [is_replay(path, raw[0] or None, raw[1], raw[2])]
        return judged[0]

    return replay


def _record(path: str, raw: list[bytes], replay: bool) -> None:
    """A conflicted merge that asked: its judgement kept for ``resolve`` (M6, M8: the index
    stages merged again as the driver merged them)."""
    from ..gitio.operation import find_git_dir
    from ..gitio.replay import record

    git_dir = find_git_dir(".")
    if git_dir is not None:
        record(git_dir, path, raw[0] or None, raw[1], raw[2], replay)


def _revert_probe(path: str | None, raw: list[bytes], now: str) -> Callable[[], Reverting | None]:
    """Which commit a ``git revert`` undoes, asked only of a replay that looks like one: its
    changes are then written as new ones (merging.revert)."""

    def reverting() -> Reverting | None:
        # lazy: only a revert asks
        from ..gitio.replay import committer_agent, reverted_commit
        from ..merging.result import Reverting

        found = reverted_commit(path, raw[0] or None, raw[1], raw[2])
        if found is None:
            return None
        return Reverting(found[0], found[1], committer_agent(_env_agent()), now)

    return reverting


def _env_agent() -> str | None:
    """``GIT_VCONTEXT_AGENT`` checked as everywhere; an invalid one (git runs the driver:
    no usage to refuse) is named in a warning and the revert is git's committer's."""
    from ..branches.agents import agent_named_in_env
    from ..errors import UsageError

    try:
        return agent_named_in_env()
    except UsageError as exc:
        warn((f"{exc.message}; the revert is written as git's committer's",))
        return None


def marker_labels(base: str | None, ours: str | None, theirs: str | None) -> tuple[str, str, str]:
    """(base, ours, theirs) labels: git's %S %X %Y (git >= 2.44), else the branch names found
    in the repository's state (older gits pass the placeholders themselves)."""
    given = [None if not v or v.startswith("%") else v for v in (base, ours, theirs)]
    if all(given):
        return given[0], given[1], given[2]  # type: ignore[return-value]
    # lazy: only when git passed no labels
    from ..gitio.invoker import git_commands
    from ..gitio.operation import current, find_git_dir

    op = current(find_git_dir("."), commands=git_commands())
    return given[0] or "base", given[1] or op.ours, given[2] or op.theirs


def warn(warnings: tuple[str, ...]) -> None:
    """The warnings of the layers below (a favor ignored), one line each on stderr."""
    for warning in warnings:
        print(f"git-vcontext: warning: {warning}", file=sys.stderr)


LISTS_THEM = "git vcontext conflicts lists them"
"""How the driver's line for a conflicted document ends: the command that lists the
conflicts (with their ids, for ``resolve``) once git has stopped (a line of git's own,
"CONFLICT (content): …", follows it)."""


def describe(outcome: FileMerge, name: str) -> None:
    """One line per problem on stderr, as git shows a driver's messages (the path C-quoted as
    git quotes it: a newline in it cannot split the line); a conflicted document's line
    ends with the command that lists its conflicts (``LISTS_THEM``)."""
    favored = [n for n in outcome.result.notes if n.kind == "favored"] if outcome.result else []
    conflicts = outcome.result is not None and outcome.status == "conflict"
    if not outcome.reasons and not conflicts and not favored:
        return  # a clean merge says nothing (nor loads what saying takes: issue 32)
    from ..validation.model import quoted_path  # lazy: only a merge with something to say

    prefix = f"git-vcontext: {quoted_path(name)}"
    for reason in outcome.reasons:
        print(f"{prefix}: merged by lines: {reason}", file=sys.stderr)
    if outcome.result is not None and outcome.status == "conflict":
        shown = outcome.result.conflicts[:10]
        listing = ", ".join(f"{c.path or '/'} ({c.kind})" for c in shown)
        more = len(outcome.result.conflicts) - len(shown)
        extra = f" and {more} more" if more > 0 else ""
        print(
            f"{prefix}: {len(outcome.result.conflicts)} conflict(s): {listing}{extra}; "
            f"{LISTS_THEM}",
            file=sys.stderr,
        )
    if favored:
        side = dict(favored[0].details).get("favored")
        print(f"{prefix}: {len(favored)} conflict(s) resolved to {side} (favor)", file=sys.stderr)
