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

from ..errors import OperationalError
from ..fsio import find_common_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygit2 import Repository

    from ..gitio.outgoing import RefUpdate
    from ..prepush.check import PushReport

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


def run(
    *,
    remote: str | None = None,
    url: str | None = None,
    text: str | None = None,
    probe: bool = False,
) -> int:
    """Check what is being pushed; 0 = let it through, 1 = refuse it. ``probe`` (doctor):
    check nothing, but load what a push's check loads and open the repository, so a hook
    that could not run at a push (its package or a dependency gone, another Python) says
    why now."""
    if probe:
        return _probe()
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


def _probe() -> int:
    try:
        # lazy: what a push that is not cached loads
        from ..gitio.places import open_pushing_repo
        from ..prepush import check
        from ..validation import files

        del check, files
        open_pushing_repo()
    except OperationalError as exc:
        raise OperationalError(
            f"the pre-push check could not open this repository: {exc.message}"
        ) from None
    except ImportError as exc:  # a dependency gone (pygit2, ...)
        raise OperationalError(
            f"the pre-push check could not run ({exc}): every push is refused until "
            "git-vcontext is installed again (then git vcontext install)"
        ) from None
    return 0


def _check(remote: str | None, text: str) -> int:
    remote = remote or os.environ.get("PRE_COMMIT_REMOTE_NAME") or "origin"
    if text.strip() and _checked_before(remote, text):
        return 0
    # lazy: an empty or cached push returns before
    from ..gitio.outgoing import parse_ref_lines
    from ..gitio.places import common_dir, open_pushing_repo
    from ..prepush.cache import VerdictCache
    from ..prepush.check import check_updates

    updates = parse_ref_lines(text) or _from_pre_commit()
    if not updates:
        return 0
    repo = open_pushing_repo()
    cache = VerdictCache.open(common_dir(repo))
    report, checker = check_updates(repo, updates, remote, cache)
    cache.save()
    if cache.warning:
        report.notes.append(cache.warning)
    if os.environ.get(VERBOSE):
        report.notes.append(
            f"checked {checker.commits} commit(s), {checker.files} file "
            f"change(s); cache hits {cache.hits}, misses {cache.misses}"
        )
    return _write(report, repo)


def _checked_before(remote: str, text: str) -> bool:
    """Whether this exact push was found clean before (``sync`` checks its pushes in
    process and says so in the cache): answered without opening the repository."""
    # lazy: an empty push returns before
    from ..prepush.cache import VerdictCache, push_key

    found = find_common_dir(os.getcwd(), os.environ)
    if found is None:
        return False
    cache = VerdictCache.open(found)
    if cache.get(push_key(remote, text)) != []:
        return False
    if os.environ.get(VERBOSE):
        sys.stderr.write("git-vcontext: this push was checked before (cache hit)\n")
    return True


def _write(report: PushReport, repo: Repository | None = None) -> int:
    """Print the report on stderr; 1 when the push must be refused."""
    out = report.lines + [f"git-vcontext: note: {note}" for note in report.notes]
    if report.problems:
        fix = report.fixes(repo)
        out.append(
            f"git-vcontext: push refused: {report.problems} problem(s) in {report.held()}. "
            f"{fix[:1].upper()}{fix[1:]}, then push again."
        )
    if out:
        sys.stderr.write("\n".join(out) + "\n")
        sys.stderr.flush()
    return 1 if report.problems else 0


def _from_pre_commit() -> list[RefUpdate]:
    """The one ref update the pre-commit framework describes in its environment.

    It passes the first ref that has something to push: ``PRE_COMMIT_FROM_REF`` (the
    remote's tip, or the parent of the first new commit) and ``PRE_COMMIT_TO_REF``;
    for a push that includes a root commit only the branch names (whole history).
    """
    # lazy: only under the pre-commit framework
    from ..gitio.outgoing import RefUpdate

    env = os.environ
    local = env.get(PRE_COMMIT_LOCAL)
    to_ref = env.get(PRE_COMMIT_TO) or local
    if not to_ref:
        return []
    from_ref = env.get("PRE_COMMIT_FROM_REF") or "0" * 40
    remote_ref = env.get("PRE_COMMIT_REMOTE_BRANCH") or local or to_ref
    return [RefUpdate(local or to_ref, to_ref, remote_ref, from_ref)]
