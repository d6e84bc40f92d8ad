"""Whether a merge commit ``sync`` is about to make passes the checks the pre-push hook (and
the server's integration) would apply to it (PRODUCT.md, "Branch-per-agent workflow": one
truth).

A merge that would fail them is not made: ``sync`` stops that pair as it stops one that
conflicts, and an integration leaves that request out, so no request, however broken (a
client that skipped the hook, an older version), blocks another agent's round. The
verdicts are the hook's own (``verdicts.Checker``, its verdict cache), so a push of the
commits found clean here costs no second check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..branches.treemerge import PathConflict
from ..gitio.objects import commit_at, descends, make_commit, merge_base, signature, tree_blob
from ..gitio.outgoing import tracking_tips
from ..gitio.places import common_dir
from ..validation.model import NOTE_RULES
from .cache import VerdictCache
from .rebase import SHORT, rebase_after
from .verdicts import Checker

if TYPE_CHECKING:
    from pygit2 import Commit, Oid, Repository, Tree

    from ..validation.model import Finding

HISTORY_PREFIX = "history-"  # the history rules' ids (validation.history.RULES)

FAILS_CHECKS = "fails the checks"
"""The ``PathConflict.kind`` of a document whose merge the hook would refuse."""


class MergeChecks:
    """The hook's verdicts on merge commits, with one verdict cache for a whole sync."""

    def __init__(self, repo: Repository) -> None:
        self.repo = repo
        self._cache: VerdictCache | None = None
        self._checker: Checker | None = None

    def failures(
        self, commit: Oid, branch: str, *, first: Oid | None = None
    ) -> tuple[PathConflict, ...]:
        """What the hook would refuse in ``commit`` (checked against each of its parents),
        one ``PathConflict`` per document, saying what to do on ``branch`` (the agent's).

        The first parent is the base: a problem its own version of a document already has
        is the base's, not the agent's, and stops no agent (the hook still judges the push).
        ``first``: the base as the push will show it, when it differs from ``commit``'s
        first parent (a later merge of an integration that combines them into one commit,
        whose first parent is the base before its first merge).
        """
        checker = self._checker_of()
        merge = commit_at(self.repo, commit)
        if first is not None and merge.parent_ids and merge.parent_ids[0] != first:
            merge = commit_at(self.repo, self._as_pushed(merge, first))
        found = checker.commit(merge)
        from ..gitio.cutwalk import parent_commits

        seen = parent_commits(self.repo, merge)
        base = seen[0].tree if seen else None
        out = []
        for path, findings in sorted(found.items()):
            had = _known(checker, base, path)
            problems = [f for f in findings if f.rule not in NOTE_RULES and _key(f) not in had]
            if problems:
                published = self._published(merge.parent_ids[1:])
                rewrite = None if published else self._rewrite(merge)
                advice = _advice(branch, path, problems, rewrite=rewrite)
                reasons = (*(_reason(f) for f in problems), advice)
                out.append(PathConflict(path, FAILS_CHECKS, reasons=reasons))
        return tuple(out)

    def _rewrite(self, merge: Commit) -> str:
        """The interactive rebase that reaches every commit of the agent's the base lacks:
        from their merge base, ``--root`` when they share none. (A bare ``git rebase -i``
        needs an upstream, which a forked agent branch has not, and stops at no root.)"""
        parents = merge.parent_ids
        agent = parents[1] if len(parents) > 1 else merge.id
        since = merge_base(self.repo, parents[0], agent) if parents else None
        return rebase_after(None if since is None else str(since)[:SHORT])

    def _published(self, commits: list[Oid]) -> bool:
        """Whether the agent's commits are on a remote already (as far as we fetched): a
        commit fixing them is then enough, since the hook checks only what the remote lacks."""
        tips = tracking_tips(self.repo)
        return bool(commits) and all(
            any(t == c or descends(self.repo, t, c) for t in tips) for c in commits
        )

    def _as_pushed(self, merge: Commit, first: Oid) -> Oid:
        """The same merge with ``first`` as its first parent (an object to judge, never
        referenced; a fixed identity and time, so the same merge is judged once)."""
        nobody = signature("git-vcontext", "check@git-vcontext.invalid", time=0)
        parents = [first, *merge.parent_ids[1:]]
        return make_commit(self.repo, merge.tree_id, parents, "check\n", nobody, nobody)

    def save(self) -> None:
        """Keep the verdicts for the hook that checks the push (a no-op when none ran)."""
        if self._cache is not None:
            self._cache.save()

    def _checker_of(self) -> Checker:
        if self._checker is None:
            self._cache = VerdictCache.open(common_dir(self.repo))
            self._checker = Checker(self.repo, self._cache)
        return self._checker


def _known(checker: Checker, tree: Tree | None, path: str) -> set[tuple[str, str, str]]:
    """The problems the base's own version of ``path`` has (none when it lacks it)."""
    blob = None if tree is None else tree_blob(tree, path)
    if blob is None:
        return set()
    return {_key(f) for f in checker.blob_findings(str(blob.id), path)}


def _key(finding: Finding) -> tuple[str, str, str]:
    """A problem, wherever its line is."""
    return (finding.rule, finding.where, finding.message)


def only_check_failures(conflicts: tuple[PathConflict, ...]) -> bool:
    """Whether a stopped pair stopped only because its merge would fail the checks."""
    return bool(conflicts) and all(c.kind == FAILS_CHECKS for c in conflicts)


def _reason(finding: Finding) -> str:
    where = f"{finding.where}: " if finding.where else ""
    at = ""
    if finding.line is not None:
        at = f"line {finding.line}" + (f":{finding.column}" if finding.column else "") + ": "
    return f"{at}{where}{finding.message} [{finding.rule}]"


def _advice(branch: str, path: str, problems: list[Finding], *, rewrite: str | None) -> str:
    """What the agent does: fix the document on its branch, so that the pre-push hook, which
    checks every commit the remote lacks, takes it — a new commit when the bad one is on
    the remote already (``rewrite`` None), else the bad commit itself rewritten (``rewrite``:
    the rebase that reaches it)."""
    if all(f.rule.startswith(HISTORY_PREFIX) for f in problems):
        what = (
            f"restore what the base's {path} holds: logs are append-only and sequences "
            "never go down"
        )
    else:
        what = f"git vcontext validate {path} shows it there"
    if rewrite is None:
        return f"fix it on {branch} ({what}), commit, then sync again"
    return (
        f"fix it on {branch} ({what}) in the commit that brought it, as the pre-push hook "
        f"checks every commit the remote lacks (git commit --amend when it is the last one, "
        f"else {rewrite}), then sync again"
    )
