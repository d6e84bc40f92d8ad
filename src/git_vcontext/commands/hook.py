"""``git vcontext hook pre-push REMOTE URL``: refuse a push that breaks vContext documents.

Reads git's ref lines on stdin; for each ref update, the commits the remote does not
have yet are checked, from the object database (never the working tree): every
vContext blob they change (``validate.files.check_bytes``) and every change against
each parent (``validate.history``). Verdicts are cached by blob id. Exit 1 refuses
the push; a check that cannot run refuses it too (exit 3), saying why;
``git push --no-verify`` skips the hook.

Under the pre-commit framework (hook ``vcontext-history``) stdin is already consumed:
the ref comes from ``PRE_COMMIT_FROM_REF``/``PRE_COMMIT_TO_REF`` and friends, and
REMOTE/URL from ``PRE_COMMIT_REMOTE_NAME``/``PRE_COMMIT_REMOTE_URL``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..gitio.push import PushRange, RefUpdate
    from ..validate.model import Finding
    from ..workflow.pushcheck import Checker

    Verdicts = list[tuple[str, dict[str, list[Finding]]]]

PRE_COMMIT_TO = "PRE_COMMIT_TO_REF"
PRE_COMMIT_LOCAL = "PRE_COMMIT_LOCAL_BRANCH"
VERBOSE = "GIT_VCONTEXT_HOOK_VERBOSE"
BYPASS_HINT = "git push --no-verify skips this check"


def read_input() -> str:
    """The ref lines git writes on stdin ('' when stdin is a terminal or closed)."""
    stream = sys.stdin
    if stream is None or stream.closed or stream.isatty():
        return ""
    return stream.read()


def wanted(text: str) -> bool:
    """Whether there is anything to check (cheap: no repository is opened)."""
    env = os.environ
    return bool(text.strip() or env.get(PRE_COMMIT_TO) or env.get(PRE_COMMIT_LOCAL))


def run(*, remote: str | None = None, url: str | None = None, text: str | None = None) -> int:
    """Check what is being pushed; 0 = let it through, 1 = refuse it."""
    from ..errors import OperationalError

    if text is None:
        try:
            text = read_input()
        except (OSError, ValueError) as exc:
            raise OperationalError(
                f"cannot read git's ref lines on stdin ({exc}): push refused ({BYPASS_HINT})"
            ) from None
    if not wanted(text):
        return 0
    try:
        return _check(remote, text)
    except OperationalError as exc:
        raise OperationalError(
            f"pre-push check could not run, push refused: {exc.message} ({BYPASS_HINT})"
        ) from None


def _check(remote: str | None, text: str) -> int:
    from ..gitio.push import common_dir, open_pushing_repo, parse_ref_lines, pushed_commits
    from ..validate.cache import VerdictCache
    from ..workflow.agents import agent_prefix
    from ..workflow.pushcheck import Checker

    updates = parse_ref_lines(text) or _from_pre_commit()
    remote = remote or os.environ.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    if not updates:
        return 0
    repo = open_pushing_repo()
    cache = VerdictCache.open(common_dir(repo))
    checker = Checker(repo, cache)
    prefix = agent_prefix(repo)
    report = _Report()
    done: set[str] = set()
    for update in updates:
        if update.is_deletion:
            continue
        pushed = pushed_commits(repo, update, remote)
        report.notes += pushed.notes
        report.add(
            f"{update.local_ref} -> {remote} {update.remote_ref}",
            _verdicts(checker, pushed, prefix, done),
        )
    cache.save()
    if cache.warning:
        report.notes.append(cache.warning)
    if os.environ.get(VERBOSE):
        report.notes.append(
            f"checked {checker.commits} commit(s), {checker.files} file "
            f"change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    return report.write()


def _verdicts(checker: Checker, pushed: PushRange, prefix: str, done: set[str]) -> Verdicts:
    """(heading, findings by file) for each new commit of one ref update, then the
    checks between its previous and new tip (forced update, arrival outside agents/)."""
    out: Verdicts = []
    for commit in pushed.commits:
        if str(commit.id) not in done:
            done.add(str(commit.id))
            out.append((f"commit {str(commit.id)[:10]} {_subject(commit)}", checker.commit(commit)))
    if pushed.rewinds:
        heading = (
            f"forced update from {str(pushed.previous.id)[:10]} (the remote's tip, "
            f"not in the pushed history) to {str(pushed.tip.id)[:10]}"
        )
        out.append((heading, checker.between("r", pushed.previous, pushed.tip)))
    branch = pushed.update.branch
    if pushed.tip is not None and branch is not None and not branch.startswith(prefix):
        heading = (
            f"at the new tip {str(pushed.tip.id)[:10]} {_subject(pushed.tip)} "
            f"(outside the agent prefix {prefix})"
        )
        out.append((heading, checker.between("a", pushed.previous, pushed.tip)))
    return out


class _Report:
    """What the hook prints: a section per ref update with problems, notes, a verdict."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.problems = 0
        self.commits = 0
        self._skipped: set[str] = set()

    def add(self, target: str, verdicts: Verdicts) -> None:
        from ..validate.model import SKIPPED

        section: list[str] = []
        for heading, found in verdicts:
            problems = {}
            for path, findings in found.items():
                self._note_skipped(path, [f for f in findings if f.rule == SKIPPED])
                if kept := [f for f in findings if f.rule != SKIPPED]:
                    problems[path] = kept
            if problems:
                self.commits += 1
                section.append(f"  {heading}")
                self.problems += _add(section, problems)
        if section:
            self.lines += [f"git-vcontext: {target}:", *section]

    def _note_skipped(self, path: str, notes: list[Finding]) -> None:
        for note in notes:
            if path not in self._skipped:
                self._skipped.add(path)
                self.notes.append(f"{path}: {note.message}")

    def write(self) -> int:
        """Print everything on stderr; 1 when the push must be refused."""
        out = self.lines + [f"git-vcontext: note: {note}" for note in self.notes]
        if self.problems:
            out.append(
                f"git-vcontext: push refused: {self.problems} problem(s) in {self.commits} "
                "commit(s). Fix those commits (git rebase -i, then push again); "
                f"{BYPASS_HINT}."
            )
        if out:
            sys.stderr.write("\n".join(out) + "\n")
            sys.stderr.flush()
        return 1 if self.problems else 0


def _from_pre_commit() -> list[RefUpdate]:
    """The one ref update the pre-commit framework describes in its environment.

    It passes the first ref that has something to push: ``PRE_COMMIT_FROM_REF`` (the
    remote's tip, or the parent of the first new commit) and ``PRE_COMMIT_TO_REF``;
    for a push that includes a root commit only the branch names (whole history).
    """
    from ..gitio.push import RefUpdate

    env = os.environ
    local = env.get(PRE_COMMIT_LOCAL)
    to_ref = env.get(PRE_COMMIT_TO) or local
    if not to_ref:
        return []
    from_ref = env.get("PRE_COMMIT_FROM_REF") or "0" * 40
    remote_ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or local or to_ref
    return [RefUpdate(local or to_ref, to_ref, remote_ref, from_ref)]


def _add(section: list[str], found: dict[str, list[Finding]]) -> int:
    """Append the report lines of one commit's findings; return how many there were."""
    count = 0
    for path, findings in found.items():
        count += len(findings)
        section += [f"    {line}" for line in _lines(path, findings)]
    return count


def _subject(commit: Any) -> str:
    message: str = commit.message or ""
    return message.strip().split("\n", 1)[0][:72]


def _lines(path: str, findings: list[Finding]) -> list[str]:
    from ..validate.model import FileReport

    return FileReport(path, tuple(findings)).lines()
