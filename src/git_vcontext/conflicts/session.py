"""One conflicted file opened for resolving, and choices applied to it and written.

From the index stages of a stopped merge, rebase or cherry-pick (with the choices
recorded so far), else from the markers or the structured ``ConflictResolution`` in
the file itself. ``open_file(...).apply(choices)`` is what ``resolve``, ``git mergetool
-t vcontext`` and the MCP tool ``vcontext_resolve`` call.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..branches import agents
from ..branches.forkstate import merger_agent
from ..clock import now_rfc3339
from ..codecs import parse
from ..codecs.text import find_conflict_marker
from ..errors import NotData, OperationalError, ParseError, UsageError
from ..fsio import check_inside, write_atomic
from ..gitio import git
from ..gitio.index import is_tracked
from ..gitio.objects import signatures
from ..gitio.places import common_dir
from ..gitio.replay import committer_agent, forget_others, recorded
from ..gitio.settings import merge_settings
from ..merging.result import Reverting
from ..merging.textmerge import Markers
from ..record import record
from ..resolution.core import Resolution, from_marked, from_versions, recovered_now
from ..resolution.findings import new_findings
from ..resolution.markers import split_markers
from ..resolution.model import Choice, FileConflict, Settled, Style
from ..resolution.structured import StructuredFile, has_unresolved
from .choices import ResolveState, prune, state_key
from .context import Context
from .report import by_hand

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..gitio.index import Stages
    from .listing import Source

NO_VALUE: Any = object()
"""No ``--value`` given (``None`` is JSON null, a value like any other)."""


@record
class Outcome:
    """What one ``apply`` did."""

    path: str
    chosen: tuple[tuple[FileConflict, Choice], ...]
    remaining: tuple[FileConflict, ...]
    text: str | None  # the new content (None: the file is deleted)
    written: bool
    staged: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        return not self.remaining

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "resolved": [{**c.to_json(), "choice": ch.to_json()} for c, ch in self.chosen],
            "remaining": [c.to_json() for c in self.remaining],
            "written": self.written,
            "staged": self.staged,
            "warnings": list(self.warnings),
        }


class Session:
    """A conflicted file with the choices made so far; ``apply`` adds choices and writes."""

    def __init__(
        self,
        ctx: Context,
        rel: str,
        resolution: Resolution | StructuredFile,
        style: Style,
        *,
        source: Source,
        labels: dict[str, str],
        state: ResolveState | None = None,
        now: str | None = None,
    ) -> None:
        self.ctx, self.path, self.resolution, self.style = ctx, rel, resolution, style
        self.source = source
        self.labels = labels
        self.state = state
        self.now = now
        self.choices: dict[str, Choice] = dict(state.choices) if state else {}
        self.edited_copy: Path | None = None  # set when the work tree was edited meanwhile
        self.by: dict[str, Any] | None = None  # resolvedBy (default: who runs the command)
        # the folder writes must stay in, through links (the MCP server's root; the CLI
        # writes through a link the user names)
        self.inside: str | None = None

    @property
    def conflicts(self) -> list[FileConflict]:
        """Every conflict of the file, the ones already settled included."""
        return self.resolution.conflicts

    @property
    def remaining(self) -> list[FileConflict]:
        return self.resolution.remaining(self.choices)

    @property
    def base_known(self) -> bool:
        """False for markers without a base section: every difference is a conflict and no
        side is the base (``--take base`` is refused rather than read as "absent")."""
        return self.resolution.base_known

    def find(self, ref: str) -> FileConflict:
        """A conflict by id, JSON Pointer or id-anchored path; UsageError listing the ids."""
        for c in self.conflicts:
            if ref in (c.id, c.pointer, c.where):
                return c
        listing = ", ".join(f"{c.id} ({c.where})" for c in self.remaining) or "none are left"
        raise UsageError(f"{self.path}: no conflict {ref!r}; its conflicts: {listing}")

    def asked(
        self, ref: str | None = None, take: str | None = None, value: Any = NO_VALUE
    ) -> dict[str, Choice]:
        """The choices asked for: ``take`` a side or put ``value`` (a JSON value) at one
        conflict (``ref``: id, pointer or where) or at all that remain. UsageError for
        an unknown ``ref``, neither or both ways, or one value for several conflicts."""
        if take is not None and value is not NO_VALUE:
            raise UsageError("give --take or --value, not both")
        targets = [self.find(ref)] if ref is not None else self.remaining
        ids = ", ".join(f"{c.id} ({c.where})" for c in targets)
        if take is None and value is NO_VALUE:
            if targets:
                raise UsageError(
                    f"say how to resolve: --take ours|theirs|base or --value JSON ({ids})"
                )
            return {}
        if value is not NO_VALUE and len(targets) > 1:
            raise UsageError(f"--value needs one conflict: name it with --conflict ({ids})")
        choice = Choice(take) if take else Choice(None, value)
        return {c.id: choice for c in targets}

    def settle(self, choices: dict[str, Choice], *, text: bool = True) -> Settled:
        by = self.by or resolver(self.ctx)
        return self.resolution.settle(
            choices, self.style, resolved_by=by, now=now_rfc3339(), text=text
        )

    def apply(self, new: dict[str, Choice], *, add: bool = True, dry_run: bool = False) -> Outcome:
        """Record ``new`` choices (by conflict id), write the file, stage it when none is left.

        A value given (not a side) that makes the document invalid is refused (UsageError
        with the findings) and nothing changes; a side taken that does is warned about.
        """
        if not self.base_known and any(c.take == "base" for c in new.values()):
            raise UsageError(
                f"{self.path}: its markers have no base section, so there is no base to take:"
                " take ours or theirs, or give a value"
            )
        choices = {**self.choices, **new}
        settled = self.settle(choices)
        before = self.settle(self.choices, text=False).data
        ours = self.resolution.ours  # (read by its name, else its content: its format)
        findings = new_findings(before, settled.data, self.path, ours.format)
        if settled.done and not findings:
            # the last choice: what the document has that ours' own version had not (a
            # reference left dangling by taking ours' delete in a delete/reference conflict)
            findings = new_findings(ours.data, settled.data, self.path, ours.format)
        if findings and any(c.take is None for c in new.values()):
            raise UsageError(
                f"{self.path}: the value makes the document invalid, nothing written: "
                + "; ".join(findings)
            )
        chosen = tuple((c, new[c.id]) for c in self.conflicts if c.id in new)
        warnings = tuple(f"{self.path}: {f}" for f in findings)
        outcome = Outcome(
            self.path, chosen, settled.remaining, settled.text, False, False, warnings
        )
        if dry_run:
            return outcome
        self._write(settled)
        # a result validate rejects is written (the side is the person's choice) but never
        # staged: git keeps the path unmerged, so no commit the hook refuses follows (M19)
        # until a person mends it and adds it (``next_steps``)
        staged = settled.done and add and not findings and self._stage(settled.text is None)
        if self.state is not None:
            self.state.choices = choices
            if settled.done:
                self.state.forget()
            else:
                self.state.save()
        self.choices = choices
        return Outcome(self.path, chosen, settled.remaining, settled.text, True, staged, warnings)

    def _write(self, settled: Settled) -> None:
        if self.inside is not None:
            check_inside(str(self.ctx.full(self.path)), self.inside)
        target = Path(os.path.realpath(self.ctx.full(self.path)))
        if settled.text is not None:
            data = settled.text.encode("utf-8", "surrogateescape")
            if self.source == "stages":  # as git checks it out (core.autocrlf: CRLF)
                data = self.ctx.checked_out(self.path, data)
            write_atomic(target, data)
        elif settled.done and target.exists():
            target.unlink()

    def next_steps(self, outcome: Outcome) -> list[str]:
        """What comes after a file resolved and staged in a stopped merge (rebase, …), as
        ``git status`` would say it: the conflicts of the other files still conflicted, or
        the command that finishes the operation once none is left ([] otherwise). A file
        left unstaged because ``validate`` rejects the result: mend it, then add it."""
        kind = self.ctx.operation.kind
        if outcome.done and outcome.written and outcome.warnings and not outcome.staged:
            from ..validation.model import command_path

            shown = command_path(self.path)  # (not staged: validate rejects the result)
            return [f"mend {shown} (git vcontext validate {shown} shows where), git add {shown}"]
        if not (outcome.staged and outcome.done and kind and self.source == "stages"):
            return []
        if self.ctx.stages():
            return ["git vcontext conflicts"]
        from ..sync.advice import finish_command

        return [finish_command(kind)]

    def _stage(self, deleted: bool) -> bool:
        """``git add`` (``git rm --cached`` for a deleted file), as ``git mergetool`` does; a
        file outside a stopped merge only when git tracks it."""
        if self.ctx.top is None or (self.source != "stages" and not self._tracked()):
            return False

        command = ["rm", "-q", "--cached", "--ignore-unmatch"] if deleted else ["add"]
        git([*command, "--", self.path], cwd=self.ctx.top)
        return True

    def _tracked(self) -> bool:
        repo = self.ctx.repo
        if repo is None:  # (never: a work tree comes with its repository)
            return False
        return is_tracked(repo, self.path)


def open_file(
    path: str, *, cwd: str | os.PathLike[str] = ".", by: dict[str, Any] | None = None
) -> Session:
    """The conflicted file ``path`` (relative to ``cwd``); OperationalError when it has none.
    ``by``: who settles it (an Extension 10 Agent: its ``resolvedBy``, a revert's agent);
    None: who runs the command (``resolver``)."""
    ctx = Context(cwd, by=by)
    rel = ctx.relative(path)
    stages = ctx.stages().get(rel)
    if stages is not None:
        return _from_stages(ctx, rel, stages)
    return _from_file(ctx, rel)


def _from_stages(ctx: Context, rel: str, stages: Stages) -> Session:
    ids = [str(e.id) if e is not None else "" for e in stages]
    top = str(ctx.top) if ctx.top is not None else None
    state = ResolveState(_common_dir(ctx), rel, ids, since=ctx.stopped_at, top=top)
    base, ours, theirs = (ctx.blob(e) for e in stages)
    raw = _read_bytes(ctx.full(rel))
    # the work tree's text as git stores it: a CRLF work tree (core.autocrlf) compares
    # equal to the LF stages when nothing but git's conversion differs
    text = _decoded(ctx.stored(rel, raw)) if raw is not None else None
    shown = _style_of(text) if text is not None else None
    style = state.style or shown or _default_style(ctx)
    if not state.found:
        state.now = _now_of(text, ours, theirs, rel)
        state.style = style
    replay = _replay(ctx, rel, base, ours, theirs)
    probe = _revert_probe(ctx, state.now) if replay and ctx.operation.kind == "revert" else None
    resolution = from_versions(
        base, ours, theirs, path=rel, now=state.now, replay=replay, revert_probe=probe
    )
    known = {c.id for c in resolution.conflicts}
    state.choices = {k: v for k, v in state.choices.items() if k in known}
    labels = _labels(ctx, shown)
    session = Session(ctx, rel, resolution, style, source="stages", labels=labels, state=state)
    expected = resolution.settle(state.choices, style).text
    if expected is not None and text is not None and text != expected:  # edited meanwhile
        assert raw is not None  # (text comes from it)
        copy = state.edited_copy(raw.decode("utf-8", "surrogateescape"))
        copy.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(copy, raw, force=True)  # ours: the work tree's bytes, as they were
        session.edited_copy = copy
    if top is not None:
        live = ctx.stages()
        prune(_common_dir(ctx), top, {state_key(p, _ids(e)) for p, e in live.items()})
        if ctx.git_dir is not None:
            forget_others(ctx.git_dir, set(live))
    return session


def _ids(stages: Stages) -> list[str]:
    return [str(e.id) if e is not None else "" for e in stages]


def _now_of(text: str | None, ours: bytes | None, theirs: bytes | None, rel: str) -> str:
    return (recovered_now(text, ours, rel, theirs) if text and ours else None) or now_rfc3339()


def _labels(ctx: Context, shown: Style | None) -> dict[str, str]:
    """The sides' names: those of the markers the work tree shows (what the driver wrote
    there, so ``conflicts`` says what the file says), else the operation's."""
    if shown is not None and not shown.structured:
        m = shown.markers
        if m.ours_label and m.theirs_label:
            return {"ours": m.ours_label, "theirs": m.theirs_label}
    return ctx.operation.labels()


def _revert_probe(ctx: Context, now: str | None) -> Callable[[], Reverting | None]:
    """The commit a stopped ``git revert`` undoes (REVERT_HEAD), as the driver asked it."""

    def reverting() -> Reverting | None:
        found = ctx.reverted()
        if found is None:
            return None
        if ctx.by is not None:
            agent = tuple(ctx.by.items())
        else:  # (checked: an invalid GIT_VCONTEXT_AGENT is a usage error, as everywhere)
            agent = committer_agent(agents.agent_named_in_env())
        return Reverting(found[0], found[1], agent, now or now_rfc3339())

    return reverting


def _replay(
    ctx: Context, rel: str, base: bytes | None, ours: bytes | None, theirs: bytes | None
) -> bool:
    """Whether the stopped operation merged this file as a replay, as the driver judged it
    (M6, M8): what the driver recorded of these very stages (``replay.recorded``), else
    (no record: an older driver, or none ran) every rebase step, cherry-pick and revert."""
    said = recorded(ctx.git_dir, rel, base, ours, theirs) if ctx.git_dir else None
    if said is not None:
        return said
    return ctx.operation.kind in ("rebase", "cherry-pick", "revert")


class StrayMarkers(OperationalError):
    """A file holding conflict marker lines (what ``validate`` calls ``conflict-markers``)
    that form no complete block: nothing to take a side of, the file is edited by hand."""

    def __init__(self, rel: str, reason: str) -> None:
        self.reason = reason
        super().__init__(f"{rel}: {reason}; {by_hand(rel)}")


def _from_file(ctx: Context, rel: str) -> Session:
    full = ctx.full(rel)
    if full.is_dir():
        raise OperationalError(f"{rel}: is a directory, not a file")
    text = _read_text(full)
    if text is None:
        raise OperationalError(f"{rel}: no such file")
    marked = split_markers(text)
    if marked is not None:
        try:
            resolution = from_marked(marked, rel)
        except NotData as exc:  # a side a hand edit broke: no side to take as data either
            raise StrayMarkers(rel, f"a side of its conflict markers {exc.one_line()}") from None
        labels = {"ours": marked.markers.ours_label, "theirs": marked.markers.theirs_label}
        return Session(
            ctx, rel, resolution, Style(False, marked.markers), source="markers", labels=labels
        )

    stray = find_conflict_marker(text)
    if stray is not None:  # validate says "holds git conflict markers": no dead end here
        line = text.count("\n", 0, stray) + 1
        raise StrayMarkers(
            rel,
            f"line {line} is a conflict marker outside a complete <<<<<<< / ======= / >>>>>>> "
            "block: no sides to take",
        )
    try:
        document = parse(text.encode("utf-8", "surrogateescape"), path=rel)
    except ParseError:
        document = None
    if document is None or not has_unresolved(document.data):
        raise OperationalError(
            f"{rel}: no conflict to resolve (no stopped merge, no markers, "
            "no unresolved ConflictResolution)"
        )
    labels = {"ours": "ours", "theirs": "theirs"}
    return Session(
        ctx, rel, StructuredFile(document), Style(True), source="structured", labels=labels
    )


def _style_of(text: str) -> Style | None:
    """How the work-tree file shows its conflicts: its markers, or a structured record."""
    marked = split_markers(text)
    if marked is not None:
        return Style(False, marked.markers)

    try:
        if has_unresolved(parse(text.encode("utf-8", "surrogateescape")).data):
            return Style(True)
    except ParseError:
        pass
    return None


def _default_style(ctx: Context) -> Style:
    """The style git config asks for, with the operation's labels (the file shows none)."""
    settings = merge_settings(cwd=ctx.top or ctx.cwd)
    op = ctx.operation
    return Style(settings.structured, Markers(7, op.ours, "base", op.theirs, settings.diff3))


def _common_dir(ctx: Context) -> Path:
    assert ctx.repo is not None  # index stages come from a repository
    return common_dir(ctx.repo)


def _read_text(path: Path) -> str | None:
    raw = _read_bytes(path)
    return _decoded(raw) if raw is not None else None


def _read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _decoded(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def resolver(ctx: Context) -> dict[str, Any]:
    """``resolvedBy``, as sync's ``mergedBy``: the caller's (``Context.by``: the MCP server's
    agent, never the environment's), else the agent running the command (aiAgent), else
    the person of git's identity (human)."""
    if ctx.by is not None:
        return ctx.by
    if ctx.repo is None:
        return {"id": "git-vcontext", "type": "system", "name": "git-vcontext"}

    agent = agents.running_agent(ctx.repo)
    if agent:
        return merger_agent(None, agent)
    try:
        return merger_agent(signatures(ctx.repo)[1])
    except OperationalError:  # no identity configured
        return {"id": "git-vcontext", "type": "system", "name": "git-vcontext"}
