"""``git vcontext check [REV-RANGE]`` (PRODUCT.md, "The remote guards itself"; issue 28).

The pre-push checks over a range of commits, for CI on pull requests and for hosts where
no server hook can be installed: default ``@{upstream}..HEAD``; exit 0 clean, 1
findings, 3 when it cannot run (no upstream, an unknown revision, a shallow clone that
lacks what the range needs: it names the command that fetches it); ``--format
text|json|github``. The findings are the same lines the pre-push hook and the server
guard print (one checker). Real repositories, a real bare remote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import git_vcontext
from helpers.guard import clone_with_base, edit_json, guarded_remote, push, remote_lines, sneak
from helpers.pre_push import PLAYBOOK, TODO, commit, event, playbook, write
from helpers.run import run_cli, run_git

GITHUB = re.compile(r"::error file=([^,]+),line=(\d+),col=(\d+),title=([a-z0-9-]+)::(.+)")
FINDING = re.compile(r"(\S+):(\d+):(\d+): .* \[([a-z0-9-]+)\]$")


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks git starts must import the code under test (absolute path: git changes cwd)."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return guarded_remote(tmp_path, "--guard")


@pytest.fixture
def repo(tmp_path: Path, remote: Path) -> Path:
    """main (playbook e1, e2; todo list at sequence 3) on the remote; a branch ``work``
    tracking origin/main checked out."""
    repo = clone_with_base(remote, tmp_path / "clone")
    run_git(repo, "switch", "-q", "-c", "work", "--track", "origin/main")
    return repo


def check(repo: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli("check", *args, cwd=repo)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def _drop(repo: Path) -> tuple[str, str]:
    write(repo, PLAYBOOK, playbook(event("e1", "first")))
    return commit(repo, "drop the second lesson"), "history-event-removed"


def _rewrite(repo: Path) -> tuple[str, str]:
    write(repo, PLAYBOOK, playbook(event("e1", "rewritten"), event("e2", "second")))
    return commit(repo, "rewrite the first lesson"), "history-event-modified"


def _decrease(repo: Path) -> tuple[str, str]:
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=1))
    return commit(repo, "sequence goes back"), "history-sequence-decreased"


def _invalid(repo: Path) -> tuple[str, str]:
    edit_json(repo, TODO, lambda d: d["todoList"]["items"][0].update(status="done"))
    return commit(repo, "a status the spec does not have"), "schema"


BAD: dict[str, Callable[[Path], tuple[str, str]]] = {
    "dropped event": _drop,
    "rewritten event": _rewrite,
    "decreased sequence": _decrease,
    "invalid document": _invalid,
}


def _good(repo: Path, n: int = 1) -> str:
    head = ""
    for i in range(n):
        events = [event("e1", "first"), event("e2", "second")]
        events += [event(f"g{j}", f"good {j}") for j in range(i + 1)]
        write(repo, PLAYBOOK, playbook(*events))
        head = commit(repo, f"good commit {i}")
    return head


# -- the three formats, on ranges from the guard's histories ------------------------------


@pytest.mark.parametrize("kind", list(BAD))
def test_check_text_names_file_line_column_rule_and_commit(repo: Path, kind: str) -> None:
    _good(repo)
    bad, rule = BAD[kind](repo)

    code, out, err = check(repo)  # default: @{upstream}..HEAD

    assert code == 1, out + err
    findings = [FINDING.match(line.strip()) for line in out.splitlines()]
    rules = {m.group(4) for m in findings if m}
    assert rule in rules, out
    assert bad[:10] in out
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", list(BAD))
def test_check_json_lists_each_finding_with_its_commit(repo: Path, kind: str) -> None:
    base = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    _good(repo)
    bad, rule = BAD[kind](repo)

    code, out, err = check(repo, f"{base}..HEAD", "--format", "json")

    assert code == 1, err
    report = json.loads(out)
    mine = [f for f in report["findings"] if f["rule"] == rule]
    assert mine, report
    first = mine[0]
    assert first["commit"] == bad
    assert first["path"] in (PLAYBOOK, TODO)
    assert isinstance(first["line"], int)
    assert isinstance(first["column"], int)
    assert first["message"]
    assert first["pointer"].startswith("/") or first["pointer"] == ""
    assert report["commits"] == 2  # the good one and the bad one


@pytest.mark.parametrize("kind", list(BAD))
def test_check_github_writes_workflow_error_commands(repo: Path, kind: str) -> None:
    _good(repo)
    _bad, rule = BAD[kind](repo)

    code, out, err = check(repo, "origin/main..HEAD", "--format", "github")

    assert code == 1, out + err
    errors = [GITHUB.fullmatch(line) for line in out.splitlines() if line.startswith("::error")]
    assert errors, out
    assert all(errors), out
    matched = [m for m in errors if m and m.group(4) == rule]
    assert matched, out
    path = matched[0].group(1)
    assert path in (PLAYBOOK, TODO)
    assert int(matched[0].group(2)) >= 1
    assert int(matched[0].group(3)) >= 1
    assert "\n" not in matched[0].group(5)


def test_check_github_escapes_what_workflow_commands_reserve(repo: Path) -> None:
    """A path with a comma and a message with a colon cannot break the command apart."""
    write(repo, "memory/a,b.vcontext.json", {"vContextInfo": {"version": "0.4"}, "todoList": {}})
    commit(repo, "a list without items, in an odd name")

    code, out, _ = check(repo, "--format", "github")

    assert code == 1
    line = next(line for line in out.splitlines() if line.startswith("::error"))
    assert "file=memory/a%2Cb.vcontext.json," in line


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_check_a_clean_range_exits_0(repo: Path, fmt: str) -> None:
    _good(repo, 3)

    code, out, err = check(repo, "--format", fmt)

    assert code == 0, out + err
    if fmt == "json":
        report = json.loads(out)
        assert report["findings"] == []
        assert report["commits"] == 3
    if fmt == "github":
        assert "::error" not in out


def test_check_finds_what_the_hook_and_the_guard_find_one_checker(repo: Path, remote: Path) -> None:
    """The same push judged by the pre-push hook, the server guard and check: the same
    ``file:line:col: … [rule]`` lines."""
    _drop(repo)
    _decrease(repo)
    _invalid(repo)

    def lines(text: str) -> list[str]:
        return sorted(m.group(0) for m in map(FINDING.search, text.splitlines()) if m)

    hook = push(repo, "origin", "HEAD:main")
    guard = sneak(repo, "origin", "HEAD:main")
    code, out, _ = check(repo)

    assert hook.returncode != 0
    assert guard.returncode != 0
    assert code == 1
    by_hook = lines(hook.stderr)
    assert by_hook
    assert lines("\n".join(remote_lines(guard.stderr))) == by_hook
    assert lines(out) == by_hook


def test_check_symmetric_range_checks_only_the_branch_of_a_pull_request(repo: Path) -> None:
    """``BASE...HEAD``: what the branch added since it left the base, as a pull request
    shows it, although the base moved on."""
    run_git(repo, "switch", "-q", "-c", "feature")
    _good(repo)
    run_git(repo, "switch", "-q", "work")
    _drop(repo)  # on the base: not this pull request's business

    code, out, err = check(repo, "work...feature")

    assert code == 0, out + err


def test_check_a_merge_commit_is_judged_against_every_parent(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "side")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("s", "s")))
    commit(repo, "side: a lesson")
    run_git(repo, "switch", "-q", "work")
    write(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second"), event("w", "w")))
    commit(repo, "work: a lesson")
    run_git(repo, "merge", "-q", "-s", "ours", "--no-edit", "side")  # drops side's lesson

    code, out, _ = check(repo)

    assert code == 1
    assert "[history-event-removed]" in out


# -- when it cannot run --------------------------------------------------------------------


def test_check_without_an_upstream_exits_3_and_says_what_to_give(repo: Path) -> None:
    run_git(repo, "switch", "-q", "-c", "lonely", "--no-track")

    code, out, err = check(repo)

    assert code == 3, out + err
    assert err.count("\n") == 1, err
    assert "upstream" in err
    assert "git vcontext check" in err  # how to name a range instead


def test_check_on_a_fresh_agent_fork_names_the_range_it_adds_exit_3_kept(repo: Path) -> None:
    """PRODUCT.md fixes the default (``@{upstream}..HEAD``) and exit 3 without an upstream. A
    freshly forked agent branch has none, so the message names what the branch adds, from
    the fork base it recorded, as the remote has it (``origin/main..HEAD``), not an upstream
    to set (an agent branch's upstream is not its base); the advised check finds the agent's
    bad commit."""
    run_git(repo, "switch", "-q", "main")
    forked = run_cli("fork", "alice", cwd=repo)
    assert forked.returncode == 0, forked.stderr.decode()
    run_git(repo, "switch", "-q", "agents/alice")
    bad, rule = _drop(repo)

    code, out, err = check(repo)

    assert code == 3, out + err
    assert err.count("\n") == 1, err
    assert "agents/alice has no upstream" in err
    assert "--set-upstream-to" not in err
    advised = re.search(r"\(git vcontext check ([^ )]+)\)", err)
    assert advised is not None, err
    assert advised.group(1) == "origin/main..HEAD", err
    code, out, err = check(repo, advised.group(1))
    assert code == 1, out + err
    assert bad[:10] in out, out
    assert rule in out, out


def test_check_on_a_fork_of_a_local_base_ahead_of_the_remote_names_what_the_push_sends(
    repo: Path,
) -> None:
    """The local main holds a bad commit not yet pushed, and alice forked from it. Her push
    sends that commit too (the guard refuses it), and her ``sync --push`` merges into the
    remote's main: the advised range is ``origin/main..HEAD``. ``main..HEAD``, the local
    base, left the bad commit out and the advised check passed (PRODUCT.md, "The remote
    guards itself": check runs the pre-push checks; exit 3 without an upstream kept)."""
    run_git(repo, "switch", "-q", "main")
    bad, rule = _drop(repo)  # on the local main only
    assert run_cli("fork", "alice", cwd=repo).returncode == 0
    run_git(repo, "switch", "-q", "agents/alice")
    edit_json(repo, TODO, lambda d: d["todoList"].update(sequence=4))
    commit(repo, "alice's own work")

    code, out, err = check(repo)

    assert code == 3, out + err
    advised = re.search(r"\(git vcontext check ([^ )]+)\)", err)
    assert advised is not None, err
    code, out, err = check(repo, advised.group(1))
    assert code == 1, out + err
    assert bad[:10] in out, out
    assert rule in out, out
    pushed = run_git(repo, "push", "--no-verify", "origin", "agents/alice", check=False)
    assert pushed.returncode != 0, pushed.stderr  # the guard refuses what check found
    assert rule in pushed.stderr, pushed.stderr


def test_check_an_unknown_revision_exits_3(repo: Path) -> None:
    code, out, err = check(repo, "no-such-branch..HEAD")

    assert code == 3, out + err
    assert err.count("\n") == 1, err
    assert "no-such-branch" in err


def test_check_an_error_is_said_in_the_format_asked_for(repo: Path) -> None:
    """A CI job reading annotations or JSON sees why the check could not run, not only
    a line on stderr (exit 3 as before)."""
    code, out, err = check(repo, "no-such-branch..HEAD", "--format", "github")
    assert code == 3, out + err
    assert out.startswith("::error title=git vcontext check::"), out
    assert "no-such-branch" in out
    assert out.count("\n") == 1
    assert err.count("\n") == 1, err

    code, out, err = check(repo, "no-such-branch..HEAD", "--format", "json")
    assert code == 3, out + err
    report = json.loads(out)
    assert report["range"] == "no-such-branch..HEAD"
    assert "no-such-branch" in report["error"]


@pytest.mark.parametrize("value", ["--output={out}", "-n1", "HEAD..--all"])
def test_check_a_range_is_never_read_as_an_option(repo: Path, tmp_path: Path, value: str) -> None:
    out = tmp_path / "written-by-an-option"
    done = run_cli("check", "--", value.format(out=out), cwd=repo)
    err = done.stderr.decode()
    assert done.returncode in (2, 3), err
    assert "Traceback" not in err
    assert not out.exists()


def test_check_outside_a_repository_exits_3(tmp_path: Path) -> None:
    done = run_cli("check", "HEAD~1..HEAD", cwd=tmp_path)
    assert done.returncode == 3
    assert done.stderr.decode().count("\n") == 1


def test_check_a_bad_format_is_a_usage_error(repo: Path) -> None:
    done = run_cli("check", "--format", "xml", cwd=repo)
    assert done.returncode == 2


# -- shallow clones: say what could not be seen --------------------------------------------


def _shallow(remote: Path, where: Path, depth: int) -> Path:
    run_git(where.parent, "clone", "-q", f"--depth={depth}", f"file://{remote}", str(where))
    return where


def test_check_in_a_shallow_clone_names_the_command_that_fetches_the_rest(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    base = run_git(repo, "rev-parse", "HEAD").stdout.strip()
    _good(repo, 4)
    assert push(repo, "origin", "HEAD:main").returncode == 0
    shallow = _shallow(remote, tmp_path / "shallow", 2)

    near = check(shallow, "HEAD~1..HEAD")
    far = check(shallow, f"{base}..HEAD")

    assert near[0] == 0, near
    code, out, err = far
    assert code == 3, out + err
    assert "shallow" in err
    assert "git fetch" in err
    assert "--deepen" in err or "--unshallow" in err


def test_check_in_a_shallow_clone_never_calls_a_cut_history_clean(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """The whole history of a shallow clone (a single revision) reaches its boundary: what
    the boundary commit changed cannot be judged, and check says so instead of passing."""
    _good(repo, 3)
    assert push(repo, "origin", "HEAD:main").returncode == 0
    shallow = _shallow(remote, tmp_path / "shallow", 2)

    code, out, err = check(shallow, "HEAD")

    assert code == 3, out + err
    assert "shallow" in err
    assert "git fetch" in err


def _json_report(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    return data


def test_check_json_says_which_range_it_checked(repo: Path) -> None:
    _good(repo, 2)
    code, out, _ = check(repo, "--format", "json")
    assert code == 0
    report = _json_report(out)
    assert report["range"] == "origin/main..HEAD" or report["range"].endswith("..HEAD")
    assert report["commits"] == 2


def test_check_with_its_upstream_gone_says_gone_not_missing(repo: Path, remote: Path) -> None:
    """The upstream is configured but its branch was deleted on the remote and pruned: say
    so as ``git status`` does ("gone"), not that there is none."""
    run_git(repo, "push", "-q", "--no-verify", "origin", "HEAD:refs/heads/topic")
    run_git(repo, "branch", "-q", "--set-upstream-to=origin/topic")
    run_git(remote, "branch", "-q", "-D", "topic")
    run_git(repo, "fetch", "-q", "--prune", "origin")
    assert "gone" in run_git(repo, "status", "-sb").stdout

    code, out, err = check(repo)

    assert code == 3, out + err
    assert err.count("\n") == 1, err
    assert "work's upstream origin/topic is gone" in err
    assert "git vcontext check" in err


def test_check_of_a_whole_history_in_a_shallow_clone_advice_leads_to_a_verdict(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """Every message ends with a next step that works (DEVELOPERS: advice that leads
    nowhere is a defect): for a single revision (its whole history) no --deepen=N is
    enough in general, so the command named is the one that fetches all of it; run once,
    the next check gives a verdict."""
    _good(repo, 6)
    assert push(repo, "origin", "HEAD:main").returncode == 0
    shallow = _shallow(remote, tmp_path / "shallow", 1)

    code, out, err = check(shallow, "HEAD")
    assert code == 3, out + err
    fetch = re.search(r"git fetch [^ ,;)]+", err)
    assert fetch is not None, err
    run_git(shallow, *fetch.group(0).split()[1:])

    again = check(shallow, "HEAD")
    assert again[0] == 0, again


@pytest.mark.parametrize("where", ["no remote", "remote with another default"])
def test_check_without_an_upstream_advises_a_range_that_exists(
    repo: Path, tmp_path: Path, where: str
) -> None:
    """Exit 3 when it cannot run (no upstream): the message names the commits to check; the
    range it names exists in this repository (it always said origin/main..HEAD, which
    fails as an unknown revision in a repository without origin/main)."""
    if where == "no remote":
        run_git(repo, "remote", "remove", "origin")
        run_git(repo, "branch", "-q", "-m", "main", "trunk")
    else:
        run_git(repo, "remote", "rename", "origin", "upstream")
        run_git(repo, "branch", "-q", "-m", "main", "trunk")
    run_git(repo, "switch", "-q", "-c", "topic")
    _good(repo)

    code, _, err = check(repo)

    assert code == 3, err
    advised = re.search(r"\(git vcontext check ([^ )]+)\)", err)
    assert advised is not None, err
    again = check(repo, advised.group(1))
    assert again[0] == 0, (advised.group(1), again)


# -- advice that runs: a tag of a tree, a typo in a shallow clone, a detached HEAD -----------


def test_check_of_a_tag_of_a_tree_judges_it_with_the_case_collision_note_validate_gives(
    repo: Path,
) -> None:
    """README "Tags of trees and blobs": the hook and the guard judge what such a tag holds;
    ``check TAG`` judged nothing (it exited 3), so the note ``validate`` gives a tree whose
    files differ only in case was never said. Now it judges the tree as the hook does."""
    twin = TODO.replace("todo.", "TODO.")
    (repo / twin).write_bytes((repo / TODO).read_bytes())
    commit(repo, "a twin in case")
    run_git(repo, "tag", "cased", "HEAD^{tree}")
    code, out, err = check(repo, "cased")
    assert code == 0, out + err
    assert "[case-collision]" in out
    noted = run_cli("validate", cwd=repo).stdout.decode()
    assert "[case-collision]" in noted


def test_check_a_mistyped_revision_in_a_shallow_clone_names_the_close_name_not_a_fetch(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    """In a shallow clone an unknown name was blamed on the shallow history, with a fetch
    that cannot make a typo resolve (and a literal ``--deepen=N``). A name close to one
    here is named; a remote's branch not fetched gets the fetch that brings it; each
    advice, followed, gives a verdict."""
    shallow = _shallow(remote, tmp_path / "shallow", 1)
    code, _, err = check(shallow, "origin/mian..HEAD")
    assert code == 3
    assert "did you mean origin/main?" in err
    assert "fetch" not in err
    assert check(shallow, "origin/main..HEAD")[0] == 0
    run_git(remote, "branch", "feature", "main")
    code, _, err = check(shallow, "origin/feature..HEAD")
    assert code == 3
    fetch = re.search(r"git fetch [^,;]+?(?=, then)", err)
    assert fetch is not None, err
    run_git(shallow, *fetch.group(0).split()[1:])
    assert check(shallow, "origin/feature..HEAD")[0] == 0


def test_check_on_a_detached_head_never_advises_an_empty_range(repo: Path) -> None:
    """Detached at origin/main itself (as CI checks a branch out), the advice named
    ``origin/main..HEAD``: no commit to check. It names a range that holds HEAD's work."""
    run_git(repo, "switch", "-q", "--detach", "origin/main")
    code, _, err = check(repo)
    assert code == 3
    advised = re.search(r"\(git vcontext check ([^ )]+)\)", err)
    assert advised is not None, err
    assert advised.group(1) != "origin/main..HEAD"
    again = check(repo, advised.group(1))
    assert again[0] == 0, (advised.group(1), again)
    assert "0 commit(s)" not in again[1]
    _good(repo)  # a commit on top: the remote's branch is the base again
    code, _, err = check(repo)
    assert "(git vcontext check origin/main..HEAD)" in err


@pytest.mark.parametrize("setting", [None, "trunk"], ids=["no-upstream", "unusable-upstream"])
def test_check_advice_quotes_the_branch_it_names(
    git_repo: Path, tmp_path: Path, setting: str | None
) -> None:
    """PRODUCT.md exit 3 without an upstream, with what to give; nothing from outside
    reaches a command line unchecked: the range and the ``--set-upstream-to`` the advice
    names are made of another branch's name, which check-ref-format lets hold ``$(…)``;
    written as it is, the pasted check ran it. Each is one shell-quoted word."""
    import shlex

    hostile = "x$(touch${IFS}pwned)"
    (git_repo / "a.txt").write_text("a\n")
    run_git(git_repo, "add", "a.txt")
    run_git(git_repo, "commit", "-qm", "a")
    run_git(git_repo, "branch", hostile)
    if setting is not None:  # branch.main.merge names no branch (operands.upstream_branch)
        run_git(git_repo, "remote", "add", "origin", str(tmp_path / "nowhere.git"))
        run_git(git_repo, "config", "branch.main.remote", "origin")
        run_git(git_repo, "config", "branch.main.merge", setting)

    code, out, err = check(git_repo)

    assert code == 3, out + err
    assert f"git vcontext check {shlex.quote(f'{hostile}..HEAD')}" in err, err
    assert f"{hostile}..HEAD" not in err.replace(shlex.quote(f"{hostile}..HEAD"), ""), err
    if setting is None:
        assert f"git branch {shlex.quote(f'--set-upstream-to={hostile}')}" in err, err
