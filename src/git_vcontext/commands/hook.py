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
    from collections.abc import Callable
    from typing import Any

    from ..gitio.push import Change, RefUpdate
    from ..validate.cache import VerdictCache
    from ..validate.model import Finding

    Rules = Callable[..., list[Finding]]

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

    updates = parse_ref_lines(text) or _from_pre_commit()
    remote = remote or os.environ.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    if not updates:
        return 0
    repo = open_pushing_repo()
    cache = VerdictCache.open(common_dir(repo))
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
        checked: list[tuple[str, dict[str, list[Finding]]]] = []  # (heading, findings)
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
        branch = update.branch
        if pushed.tip is not None and branch is not None and not branch.startswith(prefix):
            heading = (
                f"  at the new tip {str(pushed.tip.id)[:10]} {_subject(pushed.tip)} "
                f"(outside the agent prefix {prefix})"
            )
            checked.append((heading, checker.between("a", pushed.previous, pushed.tip)))
        section: list[str] = []
        for heading, found in checked:
            if found:
                commits_with_problems += 1
                section.append(heading)
                problems += _add(section, found)
        if section:
            target = f"{remote} {update.remote_ref}"
            out.append(f"git-vcontext: {update.local_ref} -> {target}:")
            out += section
    cache.save()
    if cache.warning:
        out.append(f"git-vcontext: note: {cache.warning}")
    if os.environ.get(VERBOSE):
        out.append(
            f"git-vcontext: checked {checker.commits} commit(s), {checker.files} file "
            f"change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    if problems:
        out.append(
            f"git-vcontext: push refused: {problems} problem(s) in {commits_with_problems} "
            "commit(s). Fix those commits (git rebase -i, then push again); "
            f"{BYPASS_HINT}."
        )
    if out:
        sys.stderr.write("\n".join(out) + "\n")
        sys.stderr.flush()
    return 1 if problems else 0


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


def _constant(data: bytes) -> Callable[[str], bytes | None]:
    """A sibling reader that always gives ``data`` (the event log beside a projection)."""
    return lambda _name: data


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
        self._drift(commit.tree, list(found), found)
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

    def _drift(self, tree: Any, changed: list[str], found: dict[str, list[Finding]]) -> None:
        """VerMAS projections beside a changed event log or projection: drift refuses too."""
        from ..gitio.push import tree_blob
        from ..validate.cache import change_key
        from ..validate.files import check_bytes
        from ..validate.projections import EVENTS, drift_targets

        for path in drift_targets(changed):
            folder = path.rpartition("/")[0]
            events = tree_blob(tree, f"{folder}/{EVENTS}" if folder else EVENTS)
            projection = tree_blob(tree, path)
            if events is None or projection is None:
                continue
            key = change_key("p", str(events.id), str(projection.id), path)
            drift = self.cache.get(key)
            if drift is None:
                report = check_bytes(projection.data, path, sibling=_constant(events.data))
                drift = [f for f in report.findings if f.rule == "projection-drift"]
                self.cache.put(key, drift)
            known = found.setdefault(path, [])
            known.extend(f for f in drift if f not in known)

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
