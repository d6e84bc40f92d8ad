"""The pre-push check of a set of ref updates: run by the hook, and by ``sync`` before its pushes.

For each ref update, the commits the remote does not have yet are checked, from the
object database: every vContext blob they change (``validate.files.check_bytes``) and
every change against each parent (``validate.history``); a forced update is also
compared with the remote's old tip, and a branch outside the agent prefix must not
receive an unmerged fork. Verdicts are cached by object id; a push found clean is
also remembered by its ref lines (``push_key``), so the hook git starts for a push
``sync`` already checked answers without even opening the repository.
"""

from __future__ import annotations

from ..record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..gitio.push import Change, PushRange, RefUpdate
    from ..validate.cache import VerdictCache
    from ..validate.model import Finding

    Rules = Callable[..., list[Finding]]


@record
class PushReport:
    """What the check found: report lines (notes and findings), and how many problems."""

    lines: tuple[str, ...]
    problems: int
    commits_with_problems: int
    commits: int
    files: int


def check_updates(
    repo: Any, updates: list[RefUpdate], remote: str, cache: VerdictCache
) -> PushReport:
    """Check every ref update of one push (deletions are skipped)."""
    from ..gitio.push import pushed_commits
    from .agents import agent_prefix

    checker = Checker(repo, cache)
    prefix = agent_prefix(repo)
    done: set[str] = set()
    out: list[str] = []
    problems = commits_with_problems = 0
    for update in updates:
        if update.is_deletion:
            continue
        pushed = pushed_commits(repo, update, remote)
        out += [f"git-vcontext: note: {note}" for note in pushed.notes]
        section: list[str] = []
        for heading, found in _checked(checker, pushed, prefix, done):
            if found:
                commits_with_problems += 1
                section.append(heading)
                problems += _add(section, found)
        if section:
            out.append(f"git-vcontext: {update.local_ref} -> {remote} {update.remote_ref}:")
            out += section
    return PushReport(tuple(out), problems, commits_with_problems, checker.commits, checker.files)


def _checked(
    checker: Checker, pushed: PushRange, prefix: str, done: set[str]
) -> list[tuple[str, dict[str, list[Finding]]]]:
    """(heading, findings by file) for each check one ref update needs."""
    checked = []
    for commit in pushed.commits:
        if str(commit.id) in done:
            continue
        done.add(str(commit.id))
        heading = f"  commit {str(commit.id)[:10]} {_subject(commit)}"
        checked.append((heading, checker.commit(commit)))
    if pushed.rewinds:
        heading = (
            f"  forced update from {str(pushed.previous.id)[:10]} (the remote's tip, "
            f"not in the pushed history) to {str(pushed.tip.id)[:10]}"
        )
        checked.append((heading, checker.between("r", pushed.previous, pushed.tip)))
    branch = pushed.update.branch
    if pushed.tip is not None and branch is not None and not branch.startswith(prefix):
        heading = (
            f"  at the new tip {str(pushed.tip.id)[:10]} {_subject(pushed.tip)} "
            f"(outside the agent prefix {prefix})"
        )
        checked.append((heading, checker.between("a", pushed.previous, pushed.tip)))
    return checked


def push_key(remote: str, text: str) -> str:
    """The cache key of a whole push: the remote's name and git's ref lines, in any order."""
    import hashlib

    lines = sorted(" ".join(line.split()) for line in text.splitlines() if line.strip())
    digest = hashlib.sha256("\n".join([remote, *lines]).encode("utf-8", "surrogateescape"))
    return "p-" + digest.hexdigest()


def prefill(
    repo: Any, lines: list[str], remote: str, parsed: dict[Any, Any] | None = None
) -> PushReport:
    """Check a push ``sync`` is about to make, as the hook will, and remember it when clean.

    ``parsed``: documents sync parsed already (by content), reused instead of parsed again.
    """
    from ..codecs import reused_parses
    from ..gitio.push import common_dir, parse_ref_lines
    from ..validate.cache import VerdictCache

    text = "\n".join(lines) + "\n"
    cache = VerdictCache.open(common_dir(repo))
    with reused_parses(parsed):
        report = check_updates(repo, parse_ref_lines(text), remote, cache)
    if not report.problems:
        cache.put(push_key(remote, text), [])
    cache.save()
    return report


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


class Checker:
    """Verdicts on commits: per changed blob, then per change against each parent."""

    def __init__(self, repo: Any, cache: VerdictCache) -> None:
        self.repo = repo
        self.cache = cache
        self.commits = 0
        self.files = 0

    def commit(self, commit: Any) -> dict[str, list[Finding]]:
        """Findings by file for one commit (a merge is checked against every parent)."""
        from ..gitio.push import changes
        from ..installer import is_vcontext_path
        from ..validate.cache import commit_key
        from ..validate.history import check_change

        self.commits += 1
        key = commit_key(str(commit.id))
        cached = self.cache.get_files(key)
        if cached is not None:
            return cached
        found: dict[str, list[Finding]] = {}
        blobs: set[tuple[str, str]] = set()
        for parent in list(commit.parents) or [None]:
            for change in changes(self.repo, parent, commit, is_vcontext_path):
                self.files += 1
                path = change.path
                known = found.setdefault(path, [])
                if change.new_id is not None and (change.new_id, path) not in blobs:
                    blobs.add((change.new_id, path))
                    known.extend(self._blob(change.new_id, path))
                if change.old_id is not None:  # a new file has no past to break
                    history = self._pair("h", change, check_change)
                    known.extend(f for f in history if f not in known)
        result = {path: findings for path, findings in found.items() if findings}
        self.cache.put_files(key, result)
        return result

    def between(self, kind: str, previous: Any, tip: Any) -> dict[str, list[Finding]]:
        """Findings between a branch's previous tip (None: a new branch) and its new tip.

        ``a``: unmerged forks arriving (branches outside the agent prefix); ``r``: the
        history rules, for a forced update that leaves the remote's tip behind.
        """
        from ..gitio.push import changes
        from ..installer import is_vcontext_path
        from ..validate.cache import tips_key
        from ..validate.history import check_arrival, check_change

        key = tips_key(kind, None if previous is None else str(previous.id), str(tip.id))
        cached = self.cache.get_files(key)
        if cached is not None:
            return cached
        found: dict[str, list[Finding]] = {}
        for change in changes(self.repo, previous, tip, is_vcontext_path):
            if kind == "a" and change.new_id is not None:
                findings = self._pair("f", change, check_arrival)
            elif kind == "r" and change.old_id is not None:
                findings = self._pair("h", change, check_change)
            else:
                continue
            if findings:
                found[change.path] = findings
        self.cache.put_files(key, found)
        return found

    def _blob(self, blob_id: str, path: str) -> list[Finding]:
        from ..gitio.push import blob_bytes
        from ..validate.cache import blob_key
        from ..validate.files import check_bytes

        key = blob_key(blob_id, path)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        report = check_bytes(blob_bytes(self.repo, blob_id), path)
        findings = list(report.findings)
        self.cache.put(key, findings)
        return findings

    def _pair(self, kind: str, change: Change, check: Rules) -> list[Finding]:
        from ..gitio.push import blob_bytes
        from ..validate.cache import change_key

        key = change_key(kind, change.old_id, change.new_id, change.path)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        old = None if change.old_id is None else blob_bytes(self.repo, change.old_id)
        new = None if change.new_id is None else blob_bytes(self.repo, change.new_id)
        findings = check(old, new, change.path, old_path=change.old_path)
        self.cache.put(key, findings)
        return findings
