"""The pre-push check of a set of ref updates: run by the hook, by ``sync`` before its pushes, by
the server's guard (``check_received``) and by ``check`` over a range (``check_range``): one
checker, so the four judge alike.

For each ref update, the commits the remote does not have yet get the verdicts of
``verdicts.Checker`` (each changed blob, each change against each parent; which files:
the stricter of the commit's routing and the remote's); a forced update is also
compared with the remote's old tip (also a branch deleted and pushed again:
``remotepast``; not a lease ref moving from one lease commit to another: ``lease_moved``),
and a branch outside the agent prefix must not receive an unmerged
fork. A push found clean is also remembered by
its ref lines (``push_key``), so the hook git starts for a push ``sync`` already
checked answers without even opening the repository.

The guard judges what a push brings to the repository it reaches: the commits reachable
from no ref the repository had (``gitio.incoming``), a forced update against the ref's old
tip, a branch deleted and pushed again against the tip it had (the guard remembers
deletions, as the hook does), with the routing of the ref's old tip (else of the default
branch) as the floor. ``check`` judges the commits of a range, with its base's routing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..branches.agents import agent_prefix
from ..errors import shown_url
from ..gitio.loose import is_lease_ref
from ..gitio.objectcopy import changes_nothing
from ..gitio.objects import commit_named, new_commits
from ..gitio.outgoing import parse_ref_lines, pushed_commits
from ..gitio.places import common_dir
from ..validation.model import NOTE_RULES, SKIPPED, FileReport, command_word, quoted_path
from . import remotepast
from .cache import VerdictCache, push_key
from .rebase import rebase_reaching
from .verdicts import Checker

if TYPE_CHECKING:
    from pygit2 import Commit, Repository

    from ..codecs import ParseMemo
    from ..gitio.incoming import Range
    from ..gitio.outgoing import PushRange, RefUpdate
    from ..validation.model import Finding

    Verdicts = list[tuple[str, str, str, dict[str, list[Finding]], tuple[str, str] | None]]
    """(heading, commit id, subject, findings by file, for a git revert the commit it undid
    and the rebase that reaches the revert: None for any other) per commit judged."""

SERVER = "(server)"
"""The name the guard keeps the deletions it saw under (``remotepast``)."""


class PushReport:
    """What the check found: a section per ref update with problems, notes, counts."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.problems = 0
        self.commits = 0  # commits with problems (each once, whatever held its problems)
        self.forced = 0  # forced updates with problems (compared with the remote's old tip)
        self.objects = 0  # tagged trees and blobs with problems
        self._held: set[str] = set()  # the commits counted
        self.checked = 0  # commits judged
        self.findings: list[dict[str, object]] = []  # each problem, for a JSON report
        self.reverted: list[str] = []  # what refused git reverts undid (short ids)
        self._reverts: dict[str, str] = {}  # refused git revert -> the rebase reaching it
        self._order: list[str] = []  # the commits with problems, the oldest first
        self.kinds: set[str] = set()  # what held the problems: commits, forced, objects
        self.tags: list[str] = []  # tags of commits with problems (a rebase does not move them)
        self.remote: str | None = None  # where the push goes (the hook's; None: the guard's)
        self.rewound: list[str] = []  # the branches of forced updates with problems
        self._skipped: set[tuple[str, str]] = set()
        self.located: dict[str, tuple[str, str, str]] = {}  # a note on a file: path, rule, text

    def held(self) -> str:
        """What held the problems, counted as what each is: "2 commits and 1 forced update"
        (a forced update is no commit of its own, a tagged tree or blob none at all)."""
        parts = [
            f"{count} {name}{'' if count == 1 else 's'}"
            for count, name in (
                (self.commits, "commit"),
                (self.forced, "forced update"),
                (self.objects, "tagged tree or blob"),
            )
            if count
        ]
        if len(parts) < 2:
            return parts[0] if parts else "0 commits"
        return ", ".join(parts[:-1]) + " and " + parts[-1]

    def fixes(self, repo: Repository | None = None) -> str:
        """What to do about the problems found, by what held them (semicolon-separated).
        ``repo``: where the commits are, to name the rebase that reaches the first of them
        (a bare ``git rebase -i`` needs an upstream, and never reaches a root commit)."""
        said = []
        if "commits" in self.kinds:
            others = [c for c in self._order if c not in self._reverts]
            if others:
                said.append(f"fix those commits ({self._rewrite(repo, others)})")
            if self._reverts:  # as each one's own line says: drop it, then revert right
                said.append(self._revert_fix())
            if self.tags:
                name = self.tags[0] if len(self.tags) == 1 else "NAME"
                said.append(
                    f"point {', '.join(self.tags)} at the fixed commit (git tag -f {name} "
                    "COMMIT, with -a for an annotated tag)"
                )
        if "forced" in self.kinds:
            said.append(
                "a forced update drops what the remote's tip holds: build on that tip "
                f"instead ({self._pull()}, or git merge), not over it"
            )
        if "objects" in self.kinds:
            said.append("point the tag at a tree or a blob whose documents are valid")
        return "; ".join(said)

    def _pull(self) -> str:
        """The pull that builds on the remote's tip: named in full (a branch without an
        upstream, such as a forked agent branch, has no default to pull from), the remote
        as REMOTE where the guard cannot know the pusher's name for it."""
        if len(self.rewound) != 1:
            return "git pull --rebase"
        # a URL holding credentials (git gives the hook the URL pushed to) is never printed:
        # masked it would not work pasted
        hidden = self.remote is None or shown_url(self.remote) != self.remote
        remote = "REMOTE" if hidden else command_word(self.remote or "")
        return f"git pull --rebase {remote} {command_word(self.rewound[0])}"

    def _revert_fix(self) -> str:
        """What to do about the refused git reverts (``revert_advice``, for all of them)."""
        rebase = next(iter(self._reverts.values()))  # the one reaching the oldest
        ids = " ".join(self.reverted)
        if len(self._reverts) == 1:
            return (
                "drop the git revert (git reset --keep HEAD~1 when it is the last commit, "
                f"else {rebase} and drop its line) and run git vcontext revert {ids}"
            )
        return (
            f"drop the git reverts ({rebase} and drop their lines) and run git vcontext "
            f"revert {ids}"
        )

    def _rewrite(self, repo: Repository | None, commits: list[str]) -> str:
        """The commands that rewrite ``commits`` (with problems, the oldest first) on."""
        first = None if repo is None else commit_named(repo, commits[0])
        if first is None:
            return "git rebase -i"
        start = rebase_reaching(first)
        if len(commits) == 1:
            return f"git commit --amend when it is your last commit, else {start}"
        return start

    def add(self, target: str, verdicts: Verdicts) -> None:
        section: list[str] = []
        for heading, commit, subject, found, reverted in verdicts:
            problems = {}
            for path, findings in found.items():
                self._note_skipped(path, [f for f in findings if f.rule in NOTE_RULES])
                if kept := [f for f in findings if f.rule not in NOTE_RULES]:
                    problems[path] = kept
            if problems:
                kind = _kind(heading)
                self._count(kind, commit, target)
                section.append(f"  {heading}")
                self._tagged(kind, target)
                self.problems += _add(section, problems)
                self.findings += [
                    _entry(commit, subject, path, f) for path, fs in problems.items() for f in fs
                ]
                if reverted and _history(problems) and commit not in self._reverts:
                    self._reverts[commit] = reverted[1]
                    self.reverted.append(reverted[0])
                    section.append(f"    {revert_advice(*reverted)}")
        if section:
            self.lines += [f"git-vcontext: {target}:", *section]

    def _count(self, kind: str, commit: str, target: str) -> None:
        """Count what held problems (each commit once), and remember what the advice names."""
        self.kinds.add(kind)
        if kind == "forced":
            self.forced += 1
            ref = target.rsplit(" ", 1)[-1]
            if ref.startswith("refs/heads/") and ref[11:] not in self.rewound:
                self.rewound.append(ref[11:])
        elif kind == "objects":
            self.objects += 1
        elif commit not in self._held:
            self._held.add(commit)
            self.commits += 1
            self._order.append(commit)

    def _tagged(self, kind: str, target: str) -> None:
        """Remember a tag whose commits hold problems: fixing them (a rebase) moves no tag."""
        tag = _tag_of(target)
        if kind == "commits" and tag is not None and tag not in self.tags:
            self.tags.append(tag)

    def _note_skipped(self, path: str, notes: list[Finding]) -> None:
        for note in notes:
            if (path, note.rule) not in self._skipped:  # each once (a file in many commits)
                self._skipped.add((path, note.rule))
                rule = "" if note.rule == SKIPPED else f" [{note.rule}]"
                self.notes.append(f"{quoted_path(path)}: {note.message}{rule}")
                if rule:  # a warning on the file (check --format github)
                    self.located[self.notes[-1]] = (path, note.rule, note.message)


def _tag_of(target: str) -> str | None:
    """The tag a ref update pushes (``refs/tags/v1``, or the hook's ``refs/tags/v1 -> origin
    refs/tags/v1``), None for another ref."""
    ref = target.rsplit(" ", 1)[-1]
    return ref.removeprefix("refs/tags/") if ref.startswith("refs/tags/") else None


def check_updates(
    repo: Repository, updates: list[RefUpdate], remote: str, cache: VerdictCache
) -> tuple[PushReport, Checker]:
    """Check every ref update of one push (deletions are skipped)."""
    checker = Checker(repo, cache)
    prefix = agent_prefix(repo)
    report = PushReport()
    report.remote = None if remote == SERVER else remote
    done: set[str] = set()
    limit = None if remote == SERVER else remotepast.KEEP  # the integration's: the guard's record
    deleted = remotepast.remember_deletions(repo, remote, updates, limit=limit)
    for update in updates:
        if update.is_deletion:
            continue
        pushed = pushed_commits(repo, update, remote)
        if pushed.tip is None:  # a tag of a tree or a blob: judged as what it holds
            floor = remotepast.routing_floor(repo, pushed, remote)
            base = None if floor is None else commit_named(repo, floor)
            target = f"{update.local_ref} -> {shown_url(remote)} {update.remote_ref}"
            report.add(target, _not_a_commit(checker, update, base, report))
            continue
        if (before := remotepast.predecessor(repo, pushed, remote, deleted)) is not None:
            remotepast.compare_with(pushed, before, repo)  # deleted, then pushed again
        checker.floor = remotepast.routing_floor(repo, pushed, remote)
        report.notes += pushed.notes
        verdicts = _verdicts(checker, pushed, prefix, done)
        report.add(f"{update.local_ref} -> {shown_url(remote)} {update.remote_ref}", verdicts)
        report.notes += fork_notes(
            checker.repo, pushed, pushed.previous, prefix, verdicts, undo=False
        )
    return report, checker


def check_received(
    repo: Repository, updates: list[RefUpdate], cache: VerdictCache
) -> tuple[PushReport, Checker]:
    """The server's guard: every ref update a push brings (deletions are judged by the
    guard's own policy, not here), each update's new commits, a forced update against the
    ref's old tip, a re-created ref against the tip it had before its deletion."""
    # lazy: only the guard reads what a push brings
    from ..gitio.incoming import default_branch, received_commits, ref_tips

    checker = Checker(repo, cache)
    prefix = agent_prefix(repo)
    report = PushReport()
    done: set[str] = set()
    hidden = ref_tips(repo)  # what the repository has: not news
    deleted = remotepast.remember_deletions(repo, SERVER, updates, keep=False, limit=None)
    default = default_branch(repo)
    fallback = None if default is None else commit_named(repo, default)
    for update in updates:
        if update.is_deletion:
            continue
        pushed = received_commits(repo, update, hidden)
        if pushed.tip is None:  # a tag of a tree or a blob: judged as what it holds
            report.add(update.remote_ref, _not_a_commit(checker, update, fallback, report))
            continue
        before = remotepast.predecessor(repo, pushed, SERVER, deleted, tracking=False)
        if before is not None:
            remotepast.compare_with(pushed, before, repo)  # deleted, then pushed again
        floor = pushed.previous or fallback
        checker.floor = None if floor is None else str(floor.id)
        report.notes += pushed.notes
        report.checked += len(pushed.commits)
        verdicts = _verdicts(checker, pushed, prefix, done)
        report.add(update.remote_ref, verdicts)
        report.notes += fork_notes(
            checker.repo, pushed, pushed.previous, prefix, verdicts, undo=False
        )
    return report, checker


def let_in(repo: Repository, updates: list[RefUpdate]) -> None:
    """What the guard keeps of a push it lets in: the tips it deletes (a re-created ref is
    compared with them later). A refused push keeps nothing."""
    remotepast.remember_deletions(repo, SERVER, updates, limit=None)


def check_range(
    repo: Repository, spec: Range, pushed: PushRange, cache: VerdictCache
) -> PushReport:
    """``check``: the commits of a range (``pushed``, from ``gitio.incoming.range_commits``),
    with the routing of the range's base as the floor."""
    checker = Checker(repo, cache)
    checker.floor = spec.base
    report = PushReport()
    report.checked = len(pushed.commits)
    prefix = agent_prefix(repo)
    verdicts = _verdicts(checker, pushed, prefix, set())
    report.add(spec.shown, verdicts)
    base = None if spec.base is None else commit_named(repo, spec.base)
    report.notes += fork_notes(repo, pushed, base, prefix, verdicts)
    return report


def check_object(repo: Repository, sha: str, name: str, cache: VerdictCache) -> PushReport:
    """``check TAG`` of a tag of a tree or a blob: judged as the hook judges it pushed (the
    routing of HEAD's commit, when there is one, as the floor)."""
    from ..gitio.outgoing import RefUpdate

    checker = Checker(repo, cache)
    report = PushReport()
    update = RefUpdate(name, sha, name, "0" * 40)
    head = commit_named(repo, "HEAD")
    report.add(name, _not_a_commit(checker, update, head, report))
    return report


def _not_a_commit(
    checker: Checker, update: RefUpdate, floor: Commit | None, report: PushReport
) -> Verdicts:
    """A ref update to a tree or a blob (git allows a tag of either): a tree's vContext
    files are judged as a root commit's (the routing of ``floor``, the repository's, with
    install's patterns), a blob that reads like a document as one named after the ref;
    anything else is let in with a note."""
    # lazy: only a push of a tag of a tree or a blob
    from ..gitio.objects import peeled

    sha = update.local_sha
    found = peeled(checker.repo, sha)
    kind = "" if found is None else found.type_str
    checker.floor = None if floor is None else str(floor.id)
    held = sha if found is None else str(found.id)
    # an annotated tag of a tree or a blob: name what it holds, and the tag
    through = f"tag {sha[:10]} of {kind} {held[:10]}" if held != sha else f"{kind} {sha[:10]}"
    if kind == "tree":
        heading = f"{through} (what {update.remote_ref} points at)"
        return [(heading, held, heading, checker.tree(found), None)]  # type: ignore[arg-type]
    judged = None if kind != "blob" else checker.blob(held)
    if judged is None:
        report.notes.append(
            f"{update.remote_ref} points at {kind or 'an object'} {sha[:10]}, not a vContext "
            "document: nothing to check"
        )
        return []
    heading = f"{through} (what {update.remote_ref} points at)"
    return [(heading, held, heading, {update.remote_ref: judged} if judged else {}, None)]


def _verdicts(checker: Checker, pushed: PushRange, prefix: str, done: set[str]) -> Verdicts:
    """(heading, commit, subject, findings by file) for each new commit of one ref update,
    then the checks between its previous and new tip (forced update, arrival outside
    agents/)."""
    out: Verdicts = []
    for commit in pushed.commits:
        if str(commit.id) not in done:
            done.add(str(commit.id))
            found = checker.commit(commit)
            if undoing := undone_findings(checker.repo, commit):
                found = {**found, **{p: [*found.get(p, []), *f] for p, f in undoing.items()}}
            subject = _subject(commit)
            heading = f"commit {str(commit.id)[:10]} {subject}"
            out.append((heading, str(commit.id), subject, found, _reverted(commit)))
    if (
        pushed.rewinds
        and pushed.previous is not None
        and pushed.tip is not None
        and not lease_moved(pushed.update.remote_ref, pushed.previous, pushed.tip)
    ):
        heading = (
            f"forced update from {str(pushed.previous.id)[:10]} (the remote's tip, "
            f"not in the pushed history) to {str(pushed.tip.id)[:10]}"
        )
        found = checker.between("history", pushed.previous, pushed.tip)
        out.append((heading, str(pushed.tip.id), heading, found, None))
    branch = pushed.update.branch
    if pushed.tip is not None and branch is not None and not branch.startswith(prefix):
        for commit in _arriving(checker.repo, pushed):
            if found := checker.merge_arrival(commit):
                heading = (
                    f"merge commit {str(commit.id)[:10]} {_subject(commit)} "
                    f"(brings an agent's fork onto {branch}, outside the agent prefix {prefix})"
                )
                out.append((heading, str(commit.id), _subject(commit), found, None))
    return out


def lease_moved(ref: str, previous: Commit, tip: Commit) -> bool:
    """Whether ``ref`` is a lease ref moving from one lease commit to another: each changes
    no file (``remote.refs``), and what a lease ref pointed to before is no history of
    documents, so there is no forced update to compare (the light path and the guard's
    fast path judge alike). The new commits are judged as any (a lease ref is no way
    around the rules)."""
    return is_lease_ref(ref) and changes_nothing(previous) and changes_nothing(tip)


def fork_notes(
    repo: Repository,
    pushed: PushRange,
    previous: Commit | None,
    prefix: str,
    verdicts: Verdicts,
    *,
    undo: bool = True,
) -> list[str]:
    """The note on each agent fork block a branch outside the agent prefix receives without
    a merge commit (a fast-forward: ``branches.arrived``), with the fix; a block a merge
    commit brings is a finding already (``history-unmerged-fork``). ``undo``: the fix may
    undo the fast-forward (``check``: nothing is pushed yet; not the hook or the guard,
    whose push goes on)."""
    branch = pushed.update.branch
    if pushed.tip is None or branch is None or branch.startswith(prefix):
        return []
    # lazy: only a branch outside the agent prefix
    from ..branches.arrived import arrived_forks
    from ..document import checked_file
    from ..gitio.diffs import tree_changes
    from ..gitio.objects import blob_bytes

    old = None if previous is None else previous.tree
    changed = [
        (c.new_path, blob_bytes(repo, c.new_id))
        for c in tree_changes(old, pushed.tip.tree, wanted=checked_file, files_only=True)
        if c.new_id is not None and c.new_path is not None
    ]
    merged = {
        p for heading, _, _, found, _ in verdicts if heading.startswith("merge ") for p in found
    }
    back = None if previous is None or not undo else str(previous.id)[:12]
    return [
        a.note(branch, back)
        for a in arrived_forks(repo, [(p, raw) for p, raw in changed if p not in merged])
    ]


_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{7,64})\.?\s*$", re.MULTILINE)


def _reverted(commit: Commit) -> tuple[str, str] | None:
    """The commit a ``git revert`` commit undid (its short id, from git's message) and the
    rebase that reaches the revert, None for another commit."""
    found = _REVERTS.search(commit.message or "")
    return (found.group(1)[:7], rebase_reaching(commit)) if found else None


def _history(problems: dict[str, list[Finding]]) -> bool:
    return any(f.rule.startswith("history-") for found in problems.values() for f in found)


def revert_advice(reverted: str, rebase: str) -> str:
    """What to do about a ``git revert`` that took a document's old version as it was;
    ``rebase``: the one that reaches the revert (``rebase.rebase_reaching``)."""
    return (
        f"a git revert of {reverted}: git took the document's old version as it was (the "
        "file had not changed since, so no merge ran), which removes what its log holds; "
        f"drop this commit (git reset --keep HEAD~1 when it is the last, else {rebase} and "
        f"drop its line) and run git vcontext revert {reverted}: it writes the revert as new "
        "changes"
    )


def undone_findings(repo: Repository, commit: Commit) -> dict[str, list[Finding]]:
    """A commit that undoes what the sync merge it was made on brought in (made on files an
    interrupted sync left behind: ``prepush/undone``), as findings by file."""
    from ..branches.commits import SAID
    from ..validation.model import Finding
    from .undone import undone

    out: dict[str, list[Finding]] = {}
    for u in undone(repo, commit):
        message = (
            f"removes {', '.join(u.records[:5])}{' …' if len(u.records) > 5 else ''}, which the "
            f"sync merge {u.merge[:10]} before it brought in (made on files an interrupted "
            f"sync left behind?); git vcontext sync says how to redo it on them; if meant, "
            f"say so with a '{SAID} <why>' line in the commit message"
        )
        out[u.path] = [Finding("sync-undone", "", message)]
    return out


def _arriving(repo: Repository, pushed: PushRange) -> list[Commit]:
    """The commits a ref update makes arrive on its branch: those since its previous tip
    (some may be on the remote already, under an agent branch), else those the remote
    lacks (a new branch)."""
    if pushed.previous is None or pushed.tip is None:
        return list(pushed.commits)
    return list(new_commits(repo, pushed.tip.id, pushed.previous.id))


def prefill(
    repo: Repository, lines: list[str], remote: str, parsed: ParseMemo | None = None
) -> PushReport:
    """Check a push ``sync`` is about to make, as the hook will, and remember it when clean.

    ``parsed``: documents sync parsed already (by content), reused instead of parsed again.
    """
    # lazy: a cached pre-push never parses
    from ..codecs import ReusedParses

    text = "\n".join(lines) + "\n"
    cache = VerdictCache.open(common_dir(repo))
    with ReusedParses(parsed):
        report, _ = check_updates(repo, parse_ref_lines(text), remote, cache)
    if not report.problems:
        cache.put(push_key(remote, text), [])
    cache.save()
    return report


def _kind(heading: str) -> str:
    """What a verdict's heading names: a commit, a forced update, a tagged tree or blob."""
    if heading.startswith("forced update"):
        return "forced"
    if heading.startswith(("tree ", "blob ", "tag ")):
        return "objects"
    return "commits"


def _add(section: list[str], found: dict[str, list[Finding]]) -> int:
    """Append the report lines of one commit's findings; return how many there were."""
    count = 0
    for path, findings in found.items():
        count += len(findings)
        section += [f"    {line}" for line in _lines(path, findings)]
    return count


def _entry(commit: str, subject: str, path: str, finding: Finding) -> dict[str, object]:
    """One problem as the JSON report of ``check`` gives it."""
    return {
        "commit": commit,
        "subject": subject,
        "path": path,
        "line": finding.line,
        "column": finding.column,
        "rule": finding.rule,
        "pointer": finding.pointer,
        "where": finding.where,
        "message": finding.message,
    }


def _subject(commit: Commit) -> str:
    message: str = commit.message or ""
    return message.strip().split("\n", 1)[0][:72]


def _lines(path: str, findings: list[Finding]) -> list[str]:
    return FileReport(path, tuple(findings)).lines()
