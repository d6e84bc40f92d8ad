"""What a push brings to the repository it reaches (the server side of a push), and the
commits of a revision range: the commits the guard (``pre-receive``) and ``check`` judge.

- pre-receive input: ``<old> SP <new> SP <ref>`` per line (githooks(5); read by
  ``outgoing.parse_receive_lines``, beside ``RefUpdate``); the pushed
  objects wait in git's quarantine (``$GIT_QUARANTINE_PATH``), read as an alternate
  object directory, until every hook has let the push in.
- The commits one ref update brings: those reachable from its new tip and from no ref the
  repository had before the push (git's own ``rev-list NEW --not --all``); a forced update
  is one whose old tip is not in the new tip's history.
- A range ``A..B`` (what B has and A has not), ``A...B`` (what B has since the merge base
  of A and B), or one revision (its whole history), read with libgit2's revision parser:
  no value reaches a git command line.
"""

from __future__ import annotations

import os

from ..errors import OperationalError, UsageError
from ..record import record
from .outgoing import PushRange, RefUpdate, commit_of, descends, is_zero

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Commit, Object, Oid, Repository

QUARANTINE = "GIT_QUARANTINE_PATH"


def see_quarantine(repo: Repository) -> None:
    """Let ``repo`` read the objects of the push being received (git keeps them in a
    quarantine directory until the pre-receive hook lets them in)."""
    path = os.environ.get(QUARANTINE)
    if path and os.path.isdir(path):
        repo.odb.add_disk_alternate(path)


def ref_tips(repo: Repository) -> list[Oid]:
    """The commit every ref of the repository points to now (before the push lands)."""
    import pygit2

    tips: dict[Oid, None] = {}
    for name in repo.references:
        try:
            target = repo.references[name].resolve().peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            continue  # a dangling symbolic ref, a ref to a tree or a blob
        tips[target.id] = None
    return list(tips)


def default_branch(repo: Repository) -> str | None:
    """The ref the repository's ``HEAD`` names (``refs/heads/main``), None when detached."""
    head = repo.references.get("HEAD")
    if head is None:
        return None
    target = head.target
    return target if isinstance(target, str) else None


def received_commits(repo: Repository, update: RefUpdate, hidden: list[Oid]) -> PushRange:
    """The commits ``update`` brings that the repository did not have, oldest first."""
    pushed = PushRange(update)
    tip = commit_of(repo, update.local_sha)
    if tip is None:
        pushed.notes.append(f"{update.remote_ref} is not a commit: nothing to check")
        return pushed
    pushed.tip = tip
    if not is_zero(update.remote_sha):
        known = commit_of(repo, update.remote_sha, missing_ok=True)
        if known is not None:
            pushed.previous = known
            pushed.rewinds = known.id != tip.id and not descends(repo, tip.id, known.id)
    pushed.commits = _walk(repo, tip.id, hidden, update.remote_ref)
    return pushed


@record
class Range:
    """A revision range resolved: ``tip`` and, unless the whole history is meant, ``base``
    (the commits of ``base``'s history are left out)."""

    shown: str  # as given (or as the default spelled it)
    tip: str
    base: str | None
    branch: str | None  # the branch the range goes into, when its base names one


def range_commits(repo: Repository, spec: Range) -> PushRange:
    """The commits of a resolved range, oldest first, as a ``PushRange`` (its update
    names the branch the range goes into, when known, for the rules about arrivals)."""
    into = f"refs/heads/{spec.branch}" if spec.branch else spec.shown
    pushed = PushRange(RefUpdate(spec.shown, spec.tip, into, spec.base or "0" * 40))
    tip = commit_of(repo, spec.tip)
    base = None if spec.base is None else commit_of(repo, spec.base)
    if tip is None or (spec.base is not None and base is None):
        raise OperationalError(f"{spec.shown}: not a range of commits")
    pushed.tip = tip
    pushed.commits = _walk(repo, tip.id, [] if base is None else [base.id], spec.shown)
    return pushed


def shallow_edge(repo: Repository, pushed: PushRange) -> list[str]:
    """The commits of ``pushed`` whose parents this shallow clone has not fetched."""
    # lazy: only the check of a range asks
    from .promisor import shallow_boundary

    cut = shallow_boundary(repo)
    return [str(c.id) for c in pushed.commits if str(c.id) in cut]


def _walk(repo: Repository, tip: Oid, hidden: list[Oid], name: str) -> list[Commit]:
    import pygit2

    from .cutwalk import walk

    walker = walk(repo, tip, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    for oid in hidden:
        walker.hide(oid)
    try:
        return list(walker)
    except pygit2.GitError as exc:
        raise OperationalError(f"cannot read the history of {name}: {exc}") from None


def resolve_range(repo: Repository, text: str | None) -> Range:
    """``A..B``, ``A...B`` or one revision (its whole history); None: ``@{upstream}..HEAD``.
    OperationalError when a revision is unknown (saying so for a shallow clone) or there is
    no upstream; UsageError when a revision starts with ``-``."""
    if text is None:
        return _upstream_range(repo)
    if any(c in text for c in "\0\n\r"):
        raise UsageError(f"{text!r} is not a revision range")
    symmetric = "..." in text
    if symmetric or ".." in text:
        left, right = text.split("..." if symmetric else "..", 1)
        sides = [left or "HEAD", right or "HEAD"]
    else:
        sides = [text]
    for side in sides:
        if side.startswith("-"):
            raise UsageError(f"{side!r} is not a revision (it starts with '-')")
    found = [_resolve(repo, side) for side in sides]
    if len(found) == 1:
        return Range(text, str(found[0]), None, None)
    base, tip = found
    if symmetric:
        from .cutwalk import merge_base

        joined = merge_base(repo, base, tip)
        if joined is None:
            from .promisor import no_common_history  # lazy: only for check's ranges

            raise OperationalError(no_common_history(repo, sides[0], sides[1]))
        base = joined
    return Range(text, str(tip), str(base), _branch_of(repo, sides[0]))


def _upstream_range(repo: Repository) -> Range:
    import pygit2

    head = repo.references.get("HEAD")
    target = None if head is None else head.target
    if not isinstance(target, str) or not target.startswith("refs/heads/"):
        raise OperationalError(
            "HEAD is not on a branch, so there is no upstream: name the commits to check "
            f"({_detached_example(repo)})"
        )
    name = target.removeprefix("refs/heads/")
    if repo.head_is_unborn:
        raise OperationalError(f"{name} has no commits yet: nothing to check")
    if repo.is_bare:  # a server's repository: no upstream, every branch is its own
        raise OperationalError(
            "a bare repository has no upstream: name the commits to check (git vcontext "
            f"check {name}: its whole history; A..B: what B adds to A)"
        )
    try:
        branch = repo.branches.local.get(name)
        upstream = None if branch is None else branch.upstream
    except (KeyError, ValueError, pygit2.GitError):
        upstream = None
    if upstream is None:
        example = _example_base(repo, name)
        if example is None:  # nothing else here: no base to name, no upstream to set
            raise OperationalError(
                f"{name} has no upstream, and this repository has no other branch: name the "
                "commits to check (git vcontext check HEAD: its whole history)"
            )
        # (advice: the names made one word of a command line each; a branch may hold $(…))
        rng, set_to = _words(f"{example}..HEAD", f"--set-upstream-to={example}")
        unusable = _unusable_upstream(repo, name, rng)
        if unusable is not None:
            raise OperationalError(unusable)
        gone, named = _configured_upstream(repo, name)
        if gone is not None and not named:  # a URL or a path: no tracking branch
            raise OperationalError(
                f"{name}'s upstream is {gone}, a URL or a path with no remote-tracking branch"
                f" here: name the commits to check (git vcontext check {rng}), or"
                f" track a configured remote's branch (git remote add NAME URL; git fetch"
                f" NAME; git branch --set-upstream-to=NAME/BRANCH)"
            )
        if gone is not None:  # git status: "the upstream is gone"
            raise OperationalError(
                f"{name}'s upstream {gone} is gone (deleted on the remote, or pruned): name "
                f"the commits to check (git vcontext check {rng}), or set another "
                f"(git branch {set_to})"
            )
        raise OperationalError(
            f"{name} has no upstream: name the commits to check (git vcontext check "
            f"{rng}), or set one (git branch {set_to})"
        )
    shown = upstream.shorthand
    remote = upstream.remote_name if upstream.name.startswith("refs/remotes/") else None
    into = shown[len(remote) + 1 :] if remote and shown.startswith(f"{remote}/") else shown
    base = upstream.resolve().peel(pygit2.Commit).id
    tip = _resolve(repo, "HEAD")
    return Range(f"{shown}..HEAD", str(tip), str(base), into)


def _example_check(base: str | None, tip: str) -> str:
    """The check command advice names: ``base..tip``, or ``tip``'s whole history."""
    return f"git vcontext check {_words(tip if base is None else f'{base}..{tip}')[0]}"


def _words(*texts: str) -> tuple[str, ...]:
    """Each text as one word of a command line to paste (``command_word``)."""
    from ..validation.model import command_word  # lazy: only advice quotes

    return tuple(command_word(t) for t in texts)


def _detached_example(repo: Repository) -> str:
    """The check a detached HEAD's advice names: from the first base of ``_example_bases``
    that lacks commits of HEAD (a checkout of ``origin/main`` itself, as CI makes, would
    name an empty range), else HEAD's own last commit, else its whole history."""
    import pygit2

    head = repo.head.peel(pygit2.Commit).id
    for base in _example_bases(repo, None):
        found = _commit_id(repo, base)
        if found is not None and found != head and not descends(repo, found, head):
            return _example_check(base, "HEAD")
    try:
        has_parent = bool(repo[head].peel(pygit2.Commit).parents)
    except (KeyError, ValueError, pygit2.GitError):
        has_parent = False
    return _example_check("HEAD~1" if has_parent else None, "HEAD")


def _commit_id(repo: Repository, rev: str) -> Oid | None:
    import pygit2

    try:
        return repo.revparse_single(rev).peel(pygit2.Commit).id
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None


def _example_base(repo: Repository, current: str | None) -> str | None:
    """A base this repository has, for advice naming a range (``origin/main`` when it is
    there): a remote's default branch, a remote's main or master, a local main or master,
    another local branch; None when there is nothing at all (no range to name)."""
    found = _example_bases(repo, current)
    return found[0] if found else None


def _example_bases(repo: Repository, current: str | None) -> list[str]:
    """The bases ``_example_base`` picks from, best first."""
    out: list[str] = []
    refs = repo.references
    remote_heads = sorted(n for n in refs if n.startswith("refs/remotes/") and n.endswith("/HEAD"))
    for name in ["refs/remotes/origin/HEAD", *remote_heads]:
        ref = refs.get(name)
        target = None if ref is None else ref.target
        if isinstance(target, str) and target in refs:
            out.append(target.removeprefix("refs/remotes/"))
    remotes = sorted(n for n in refs if n.startswith("refs/remotes/") and not n.endswith("/HEAD"))
    for wanted in ("main", "master"):
        for name in ["refs/remotes/origin/" + wanted, *remotes]:
            if name.endswith("/" + wanted) and name in refs:
                out.append(name.removeprefix("refs/remotes/"))
    local = sorted(n.removeprefix("refs/heads/") for n in refs if n.startswith("refs/heads/"))
    others = [b for b in local if b != current and not b.startswith("-")]
    out += [w for w in ("main", "master") if w in others]
    out += others
    return list(dict.fromkeys(out))


def _unusable_upstream(repo: Repository, branch: str, rng: str) -> str | None:
    """What check says of a branch whose ``branch.<name>.merge`` names no usable branch
    (``operands.upstream_branch``: ``trunk``, ``refs/tags/v1``, ``refs/heads/-x``), as
    status and sync say it, with its way out; None for any other branch."""
    from . import config_value, operands

    remote = config_value(repo, f"branch.{branch}.remote")
    _, why = operands.upstream_branch(config_value(repo, f"branch.{branch}.merge"), branch)
    if not remote or remote == "." or why is None:  # ("." : a branch here, read by name)
        return None
    from ..validation.model import command_word  # lazy: only this refusal quotes

    way_out = f"name the commits to check (git vcontext check {rng})"
    if remote in operands.configured(repo) and f"refs/remotes/{remote}/{branch}" in repo.references:
        way_out += (
            f", or check against {remote}/{branch} (git config"
            f" branch.{command_word(branch)}.merge {command_word(f'refs/heads/{branch}')})"
        )
    return f"{branch} has no upstream git can name: {why}; {way_out}"


def _configured_upstream(repo: Repository, branch: str) -> tuple[str | None, bool]:
    """The upstream ``branch.<name>.remote``/``merge`` name (``origin/topic``; ``topic of
    URL`` for a URL or a path, its credentials masked) when they are set though the ref
    they name is not there, and whether its remote is a configured one (or ``.``); None
    when none is configured."""
    from . import config_value

    remote = config_value(repo, f"branch.{branch}.remote")
    merge = config_value(repo, f"branch.{branch}.merge")
    if remote is None or merge is None:
        return None, True
    short = merge.removeprefix("refs/heads/")
    if remote == ".":
        return short, True
    from . import operands

    named = remote in operands.configured(repo)  # else "main of /srv/x.git", as status says
    return operands.shown_branch(remote, short, named=named), named


def _resolve(repo: Repository, rev: str) -> Oid:
    import pygit2

    try:
        found = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        found = None
    if found is not None:
        try:
            return found.peel(pygit2.Commit).id
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            kind = "tree" if _tree_in(found) else "blob"
            raise OperationalError(
                f"{rev!r} names a {kind}, not a commit: check judges commits (a tag of a "
                "tree or a blob is judged when it is pushed, by the pre-push hook and the "
                "guard)"
            ) from None
    raise OperationalError(_unknown(repo, rev))


def _unknown(repo: Repository, rev: str) -> str:
    """Why ``rev`` names nothing here, and what leads on: a commit id a shallow clone may
    not have fetched (``git fetch --unshallow``), a remote's branch not fetched (``git
    fetch REMOTE BRANCH``), else the names here closest to it (a typo: no fetch finds it)."""
    import difflib

    hexdigits = set("0123456789abcdef")
    from .places import is_shallow

    if is_shallow(repo) and 4 <= len(rev) <= 64 and set(rev.lower()) <= hexdigits:
        return (
            f"unknown revision {rev!r} in this shallow clone (a commit its history did not "
            "fetch?): git fetch --unshallow, then check again"
        )
    names = [
        n.split("/", 2)[2]
        for n in repo.references
        if n.startswith(("refs/heads/", "refs/remotes/", "refs/tags/")) and not n.endswith("/HEAD")
    ]
    remote, _, branch = rev.partition("/")
    remote_branch = bool(branch) and remote in list(repo.remotes.names())
    if remote_branch:  # a typo in the branch part, among that remote's branches
        theirs = [n.split("/", 1)[1] for n in names if n.startswith(f"{remote}/")]
        close = [f"{remote}/{n}" for n in difflib.get_close_matches(branch, theirs, 3, 0.6)]
    else:
        close = difflib.get_close_matches(rev, names, n=3, cutoff=0.6)
    if close:
        return f"unknown revision {rev!r}; did you mean {' or '.join(close)}?"
    if remote_branch and not branch.startswith("-"):
        return (
            f"unknown revision {rev!r}: {remote}'s branch {branch} is not fetched here: "
            f"git fetch {remote} {branch}:refs/remotes/{remote}/{branch}, then check again"
        )
    return f"unknown revision {rev!r} (git branch -a and git tag list the names there are)"


def not_a_commit(repo: Repository, rev: str) -> tuple[str, str] | None:
    """(object id as named, full ref name or ``rev``) when one revision names a tree or a
    blob (a tag of either: ``check TAG`` judges it as the hook judges a pushed one); None
    for anything else (a commit, a range, an unknown name: ``resolve_range`` says)."""
    import pygit2

    if ".." in rev or rev.startswith("-") or any(c in rev for c in "\0\n\r"):
        return None
    try:
        found = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None
    try:
        found.peel(pygit2.Commit)
        return None
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        pass
    try:
        name = repo.lookup_reference_dwim(rev).name
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        name = rev
    return str(found.id), name


def _tree_in(found: Object) -> bool:
    """Whether ``found`` (a tag's target, followed) is a tree."""
    import pygit2

    try:
        found.peel(pygit2.Tree)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return False
    return True


def _branch_of(repo: Repository, rev: str) -> str | None:
    """The branch a revision names (``origin/main`` and ``main`` name ``main``), if any."""
    import pygit2

    try:
        ref = repo.lookup_reference_dwim(rev)
    except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
        return None
    name = ref.name
    if name.startswith("refs/heads/"):
        return name.removeprefix("refs/heads/")
    if name.startswith("refs/remotes/"):
        rest = name.removeprefix("refs/remotes/")
        return rest.split("/", 1)[1] if "/" in rest else None
    return None
