"""``git vcontext check [REV-RANGE] [--format text|json|github]``: the pre-push checks over a
range of commits, for CI on pull requests and for hosts where no server hook can run.

The range: ``A..B``, ``A...B`` (what B added since the merge base) or one revision (its
whole history); default ``@{upstream}..HEAD``. Each commit of the range gets the verdicts
the pre-push hook and the server guard give (``prepush.check``: one checker), compared
with its parents. Exit 0 clean, 1 findings, 3 when it cannot run (no upstream, an unknown
revision, a shallow clone that lacks commits the range needs: it names the fetch).
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from ..errors import ExitCode, OperationalError

if TYPE_CHECKING:
    from pygit2 import Repository

    from ..prepush.check import PushReport

FORMATS = ("text", "json", "github")


def run(*, rev_range: str | None = None, fmt: str = "text", cwd: str = ".") -> int:
    """Check the range; an error that stops it (exit 3) is also said in the format asked
    for (a workflow command's annotation, a JSON object), not only on stderr."""
    try:
        return _run(rev_range, fmt, cwd)
    except OperationalError as exc:
        if fmt == "github":
            sys.stdout.write(f"::error title=git vcontext check::{_data(exc.one_line())}\n")
        elif fmt == "json":
            data = {"range": rev_range or "@{upstream}..HEAD", "error": exc.one_line()}
            sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        raise


def _run(rev_range: str | None, fmt: str, cwd: str) -> int:
    # lazy: a usage error loads none of it
    from ..gitio import open_repo
    from ..gitio.incoming import not_a_commit, range_commits, resolve_range, shallow_edge
    from ..gitio.places import common_dir
    from ..prepush.cache import VerdictCache
    from ..prepush.check import check_range

    repo = open_repo(cwd)
    held = None if rev_range is None else not_a_commit(repo, rev_range)
    if held is not None:  # a tag of a tree or a blob: judged as the hook judges it pushed
        return _object(repo, *held, fmt=fmt, shown=rev_range or "")
    if rev_range is None and (forked := _forked_without_upstream(repo)) is not None:
        raise OperationalError(forked)
    spec = resolve_range(repo, rev_range)
    pushed = range_commits(repo, spec)
    edge = shallow_edge(repo, pushed)
    if edge:
        raise OperationalError(_shallow(edge, len(pushed.commits), whole=spec.base is None))
    cache = VerdictCache.open(common_dir(repo))
    report = check_range(repo, spec, pushed, cache)
    cache.save()
    if cache.warning:
        report.notes.append(cache.warning)
    out = {"text": _text, "json": _json, "github": _github}[fmt](report, spec.shown)
    sys.stdout.write(out)
    return int(ExitCode.FOUND if report.problems else ExitCode.OK)


def _forked_without_upstream(repo: Repository) -> str | None:
    """What to say when HEAD is an agent branch with no upstream whose fork base is known (a
    fresh ``git vcontext fork``): the range of what it adds to the base as the remote has it
    (``origin/main..HEAD``: what its push sends and ``sync --push`` merges into, not a local
    base that may be stale or hold commits not yet pushed). The default stays
    ``@{upstream}..HEAD`` (PRODUCT.md: exit 3 without an upstream); None elsewhere (a
    configured upstream that is gone, any other branch: ``resolve_range`` says it)."""
    # lazy: only a check without a range
    from ..branches.agents import agent_of_branch, forked_from, recorded_base
    from ..gitio import config_value
    from ..gitio.commits import current_branch
    from ..gitio.refs import has_branch, valid_branch_name

    branch = current_branch(repo)
    if branch is None or config_value(repo, f"branch.{branch}.merge") is not None:
        return None
    agent = agent_of_branch(repo, branch)
    if agent is None:
        return None
    base = recorded_base(repo, agent) or forked_from(repo, agent)
    if base is None or not valid_branch_name(base):
        return None
    compared = _remote_base(repo, base) or (base if has_branch(repo, base) else None)
    if compared is None:
        return None
    return (
        f"{branch} has no upstream: it is agent {agent}'s branch, forked from {base}; name "
        f"the commits it adds to {compared} (git vcontext check {compared}..HEAD)"
    )


def _remote_base(repo: Repository, base: str) -> str | None:
    """The remote's copy of ``base`` as last fetched (``origin/main``): the base's upstream,
    else the one remote-tracking branch of that name (``origin``'s among several); None
    when no remote has it (a repository with no remote: the local base is the base)."""
    import pygit2

    from ..gitio.refs import remote_branches

    try:
        local = repo.branches.local.get(base)
        upstream = None if local is None else local.upstream
    except (KeyError, ValueError, pygit2.GitError):
        upstream = None
    if upstream is not None and upstream.name.startswith("refs/remotes/"):
        return str(upstream.shorthand)
    remotes = [remote for remote, name, _ in remote_branches(repo, base) if name == base]
    if len(remotes) == 1 or "origin" in remotes:
        return f"{remotes[0] if len(remotes) == 1 else 'origin'}/{base}"
    return None


def _object(repo: Repository, sha: str, name: str, *, fmt: str, shown: str) -> int:
    # lazy: only a check of a tag of a tree or a blob
    from ..gitio.places import common_dir
    from ..prepush.cache import VerdictCache
    from ..prepush.check import check_object

    cache = VerdictCache.open(common_dir(repo))
    report = check_object(repo, sha, name, cache)
    cache.save()
    if fmt == "text":
        out = _text(report, shown, f"what {shown} points at ({sha[:10]}) checked")
    else:
        out = {"json": _json, "github": _github}[fmt](report, shown)
    sys.stdout.write(out)
    return int(ExitCode.FOUND if report.problems else ExitCode.OK)


def _shallow(edge: list[str], count: int, *, whole: bool) -> str:
    """``whole``: the range is one revision's whole history, which no ``--deepen=N`` is
    sure to reach: only ``--unshallow`` leads to a verdict."""
    shown = ", ".join(sha[:12] for sha in edge[:5])
    them = "those commits" if len(edge) > 1 else "that commit"
    fetch = (
        "git fetch --unshallow"
        if whole
        else f"git fetch --deepen={count} (or git fetch --unshallow)"
    )
    return (
        f"shallow clone: the parents of {shown} were not fetched, so what {them} changed "
        f"cannot be checked: {fetch}, then run git vcontext check again"
    )


def _text(report: PushReport, shown: str, what: str | None = None) -> str:
    lines = [*report.lines, *(f"git-vcontext: note: {n}" for n in report.notes)]
    checked = what or f"{report.checked} commit(s) of {shown} checked"
    if report.problems:
        lines.append(f"git-vcontext: {report.problems} problem(s) in {report.held()}; {checked}")
    else:
        lines.append(f"git-vcontext: no problems; {checked}")
    return "\n".join(lines) + "\n"


def _json(report: PushReport, shown: str) -> str:
    data = {
        "range": shown,
        "commits": report.checked,
        "findings": report.findings,
        "notes": report.notes,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _github(report: PushReport, shown: str) -> str:
    lines = []
    for note in report.notes:
        if note in report.located:  # a warning shown on its file (a case collision)
            path, rule, message = report.located[note]
            lines.append(
                f"::warning file={_property(path)},title={_property(rule)}::{_data(message)}"
            )
        else:
            lines.append(f"::notice::{_data(note)}")
    for f in report.findings:
        where = [f"file={_property(str(f['path']))}"]
        if f["line"] is not None:
            where.append(f"line={f['line']}")
            if f["column"] is not None:
                where.append(f"col={f['column']}")
        where.append(f"title={_property(str(f['rule']))}")
        message = f"{f['message']} (commit {str(f['commit'])[:10]} {f['subject']})"
        lines.append(f"::error {','.join(where)}::{_data(message)}")
    summary = (
        f"{report.problems} problem(s) in {report.held()}" if report.problems else "no problems"
    )
    lines.append(f"git-vcontext check {shown}: {summary}; {report.checked} commit(s) checked")
    return "\n".join(lines) + "\n"


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
