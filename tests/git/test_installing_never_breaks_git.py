"""PRODUCT.md "Installing never breaks git": with the tool installed, every git command that
works without it works the same (no identity, raw-file tools see raw files), compared with a
twin repository that has the same history and no installation."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.setup.config import ATTRIBUTE_LINES, ATTRIBUTES_HEADER
from helpers.run import cli_path
from helpers.users import NOBODY, as_nobody

DOC = "todo.vcontext.json"
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def bare_env(home: Path) -> dict[str, str]:
    """An empty HOME, no system configuration and no identity (a CI runner, a container)."""
    env = {k: v for k, v in os.environ.items() if k not in IDENTITY and k != "EMAIL"}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1")
    env.pop("GIT_CONFIG_GLOBAL", None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return env


def git(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, timeout=60)


def _todo(statuses: list[str], extra: int = 0) -> str:
    items: list[dict[str, Any]] = [
        {"id": f"t{n}", "title": f"Task {n}", "status": s} for n, s in enumerate(statuses)
    ]
    items += [{"id": f"x{n}", "title": f"Extra {n}", "status": "pending"} for n in range(extra)]
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": items}}, indent=2)


def _history(repo: Path, env: dict[str, str]) -> None:
    """Three commits (one renames the document), the same ids in both twins."""
    who = ["-c", "user.name=Someone", "-c", "user.email=someone@example.com"]
    dated = {**env, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z"}
    dated["GIT_COMMITTER_DATE"] = dated["GIT_AUTHOR_DATE"]
    git(repo, env, "init", "-q", "-b", "main")
    git(repo, env, "config", "user.useConfigOnly", "true")  # never guess an identity
    lines = [ATTRIBUTES_HEADER, *ATTRIBUTE_LINES]  # as install writes them: committed
    (repo / ".gitattributes").write_text("\n".join(lines) + "\n")
    for n, statuses in enumerate((["pending"] * 8, ["completed"] + ["pending"] * 7)):
        (repo / DOC).write_text(_todo(statuses, extra=n))
        git(repo, dated, "add", "-A")
        assert git(repo, dated, *who, "commit", "-q", "-m", f"c{n}").returncode == 0
    git(repo, dated, "mv", DOC, "plan.vcontext.json")
    (repo / "plan.vcontext.json").write_text(_todo(["completed"] * 8, extra=1))
    git(repo, dated, "add", "-A")
    assert git(repo, dated, *who, "commit", "-q", "-m", "c2").returncode == 0
    (repo / "plan.vcontext.json").write_text(_todo(["completed"] * 7 + ["inProgress"], extra=2))
    (repo / "notes.txt").write_text("a line\n")
    git(repo, env, "add", "notes.txt")


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(installed, plain, env): the same history, one with ``git vcontext install``."""
    home = tmp_path / "home"
    home.mkdir()
    env = bare_env(home)
    installed, plain = tmp_path / "installed", tmp_path / "plain"
    for repo in (installed, plain):
        repo.mkdir()
        _history(repo, env)
    done = subprocess.run(
        [*cli_path(), "install"], cwd=installed, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert git(installed, env, "status", "--porcelain", ".gitattributes").stdout == b""
    return installed, plain, env


COMMANDS = [
    ["diff"],
    ["diff", "--cached"],
    ["diff", "HEAD"],
    ["diff", "--exit-code"],
    ["show"],
    ["show", "HEAD~1"],
    ["log", "-p"],
    ["log", "-p", "--follow", "--", "plan.vcontext.json"],
    ["whatchanged", "-p"],
    ["blame", "plan.vcontext.json"],
    ["blame", "-L", "5,9", "--porcelain", "plan.vcontext.json"],
    ["grep", "--textconv", "-n", "completed", "HEAD"],
    ["format-patch", "--stdout", "-2"],
    ["diff", "--stat"],
    ["log", "-p", "--ext-diff"],  # the external diff into a pipe: git's patch
    ["show", "--ext-diff", "HEAD~1"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a))
def test_installing_never_breaks_git_without_an_identity_every_command_is_the_twins(
    twins: tuple[Path, Path, dict[str, str]], args: list[str]
) -> None:
    """Before issue 35, diff/show/log -p/blame/grep --textconv exited 128 here: install
    set diff.vcontext.cachetextconv, whose notes commits need an identity; blame and
    grep saw the textconv rendering."""
    installed, plain, env = twins
    ours, theirs = git(installed, env, *args), git(plain, env, *args)
    assert ours.returncode == theirs.returncode, (args, ours.stderr)
    assert ours.stdout == theirs.stdout, args
    assert ours.stderr == theirs.stderr, args


def test_installing_never_breaks_git_add_p_shows_and_stages_raw_hunks(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    installed, plain, env = twins
    runs = [
        subprocess.run(
            ["git", "add", "-p"], cwd=repo, env=env, input=b"y\nn\n", capture_output=True
        )
        for repo in (installed, plain)
    ]
    assert runs[0].returncode == runs[1].returncode == 0
    assert runs[0].stdout == runs[1].stdout
    assert b"inProgress" in runs[0].stdout
    staged = [
        git(repo, env, "diff", "--cached", "--no-ext-diff").stdout for repo in (installed, plain)
    ]
    assert staged[0] == staged[1]


def test_installing_never_breaks_git_stash_show_p_and_the_stash_itself(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    installed, plain, env = twins
    for repo in (installed, plain):
        assert (
            git(repo, env, "-c", "user.name=x", "-c", "user.email=x@y", "stash", "-q").returncode
            == 0
        )
    ours, theirs = (
        git(installed, env, "stash", "show", "-p"),
        git(plain, env, "stash", "show", "-p"),
    )
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)
    assert b"inProgress" in ours.stdout


def test_installing_never_breaks_git_blame_line_numbers_are_the_raw_files(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    installed, _, env = twins
    raw = git(installed, env, "show", "HEAD:plan.vcontext.json").stdout
    blame = git(installed, env, "blame", "--porcelain", "HEAD", "--", "plan.vcontext.json")
    lines = [ln for ln in blame.stdout.split(b"\n") if ln.startswith(b"\t")]
    assert [ln[1:] for ln in lines] == raw.rstrip(b"\n").split(b"\n")


def test_installing_never_breaks_git_diff_into_a_file_applies_back(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    """``git diff > p && git checkout -- . && git apply p`` round-trips (issue 35: the
    textconv patch did not apply)."""
    installed, _, env = twins
    doc = installed / "plan.vcontext.json"
    edited = doc.read_bytes()
    patch = git(installed, env, "diff").stdout
    assert patch.startswith(b"diff --git a/plan.vcontext.json b/plan.vcontext.json\n")
    assert git(installed, env, "checkout", "--", ".").returncode == 0
    assert doc.read_bytes() != edited
    applied = subprocess.run(
        ["git", "apply"], cwd=installed, env=env, input=patch, capture_output=True
    )
    assert applied.returncode == 0, applied.stderr
    assert doc.read_bytes() == edited


@pytest.mark.parametrize("moved", [False, True], ids=["", "moved installation"])
@pytest.mark.parametrize(
    "name", ["my todo.vcontext.json", 'caf\u00e9 "q".vcontext.json', "-dash.vcontext.json"]
)
def test_installing_never_breaks_git_patches_of_added_renamed_and_odd_names_are_gits(
    twins: tuple[Path, Path, dict[str, str]], name: str, moved: bool
) -> None:
    """Names git quotes, renames (with and without changes), added, deleted, executable
    and mode-only changes: byte for byte git's own patch."""
    installed, plain, env = twins
    if moved:
        _moved(installed, env)
    for repo in (installed, plain):
        who = ["-c", "user.name=x", "-c", "user.email=x@y"]
        (repo / "gone.vcontext.json").write_text(_todo(["pending"]))
        (repo / "same.vcontext.json").write_text(_todo(["pending"] * 30))
        git(repo, env, "add", "-A")
        git(repo, env, *who, "commit", "-q", "-m", "more")
        (repo / name).write_text(_todo(["pending"]))
        (repo / "sub").mkdir()
        (repo / "sub" / name).write_text(_todo(["completed"]))
        (repo / "sub" / name).chmod(0o755)
        (repo / "plan.vcontext.json").chmod(0o755)
        git(repo, env, "mv", "same.vcontext.json", "same too.vcontext.json")
        git(repo, env, "rm", "-q", "gone.vcontext.json")
        git(repo, env, "add", "-A")
    for args in (
        ["diff", "--cached"],
        ["diff", "--cached", "-M", "--stat", "-p"],
        ["diff", "HEAD~1"],
        ["-c", "diff.noprefix=true", "diff", "HEAD~1"],
        ["-c", "diff.noprefix=true", "diff", "--cached"],  # a pure rename, a mode change
        ["-c", "core.quotePath=false", "diff", "HEAD~1"],
        ["-c", "core.quotePath=false", "-c", "diff.noprefix=true", "diff", "--cached"],
        ["diff", "-R", "HEAD"],
    ):
        ours, theirs = git(installed, env, *args), git(plain, env, *args)
        assert ours.returncode == theirs.returncode
        if "-R" in args:  # git swaps the prefixes too; the patch applies all the same
            continue
        assert ours.stdout == theirs.stdout, args


@pytest.mark.parametrize("args", [["log", "-p"], ["diff", "HEAD~2"]])
def test_installing_never_breaks_git_a_reader_that_stops_early_is_no_error(
    twins: tuple[Path, Path, dict[str, str]], args: list[str]
) -> None:
    """``git log -p | head -1``: the external diff wrote into a closed pipe and git said
    "fatal: external diff died, stopping at …" where git alone ends in silence."""
    installed, plain, env = twins
    for repo in (installed, plain):
        for n in range(3):  # enough changes that the reader stops before the end
            (repo / f"more {n}.vcontext.json").write_text(_todo(["pending"] * 40, extra=n))
        git(repo, env, "add", "-A")
    seen = []
    for repo in (installed, plain):
        reader = subprocess.Popen(
            ["git", *args, "--", "."],
            cwd=repo,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert reader.stdout is not None
        assert reader.stderr is not None
        first = reader.stdout.readline()
        reader.stdout.close()  # as head does
        errors = reader.stderr.read()
        reader.wait(timeout=60)
        seen.append((first, errors))
    assert seen[0] == seen[1]
    assert b"external diff died" not in seen[0][1]


@pytest.mark.parametrize("args", [["diff"], ["diff", "HEAD"], ["diff", "--cached"]])
def test_installing_never_breaks_git_mnemonic_prefixes_give_a_patch_that_applies(
    twins: tuple[Path, Path, dict[str, str]], args: list[str]
) -> None:
    """``diff.mnemonicPrefix`` (a setting git's developers recommend): git names the sides
    i/ w/, c/ w/ or c/ i/ by what it compares, which an external diff is not told. The
    patch had no prefix at all, so ``git apply`` refused it; now a/ and b/: it applies,
    and is git's own patch but for those letters."""
    installed, plain, env = twins
    mnemonic = ["-c", "diff.mnemonicPrefix=true"]
    for repo in (installed, plain):
        (repo / "new file.vcontext.json").write_text(_todo(["pending"]))
        (repo / "caf\u00e9.vcontext.json").write_text(_todo(["completed"]))
        git(repo, env, "add", "-N", "new file.vcontext.json")
        if args == ["diff", "--cached"]:
            git(repo, env, "add", "-A")
    ours = git(installed, env, *mnemonic, *args).stdout
    theirs = git(plain, env, *mnemonic, *args).stdout
    assert ours.count(b"diff --git ") == theirs.count(b"diff --git ") >= 2
    assert re.search(rb"^diff --git \"?a/", ours, re.MULTILINE)
    assert _prefixes_as_x(ours) == _prefixes_as_x(theirs)
    cached = ["--cached"] if "--cached" in args else []
    applied = subprocess.run(
        ["git", "apply", "--check", "-R", *cached],  # the change is in place: reversed
        cwd=installed,
        env=env,
        input=ours,
        capture_output=True,
    )
    assert applied.returncode == 0, applied.stderr


def _prefixes_as_x(patch: bytes) -> bytes:
    """A patch with the one-letter prefixes of its names (a/, b/, c/, i/, w/) as x/."""
    patch = re.sub(rb'^(diff --git "?)[a-z]/(.+ "?)[a-z]/', rb"\1x/\2x/", patch, flags=re.M)
    return re.sub(rb'^(---|\+\+\+) ("?)[a-z]/', rb"\1 \2x/", patch, flags=re.M)


def _on_a_terminal(repo: Path, env: dict[str, str], *args: str, user: Sequence[str] = ()) -> str:
    """What ``git args`` prints on a terminal (a pseudo-terminal, as a person sees it)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [*user, "git", *args], cwd=repo, env=env, stdout=follower, stderr=follower, stdin=follower
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode(errors="replace")


def test_installing_never_breaks_git_a_person_sees_the_structural_view_at_a_terminal(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    installed, _, env = twins
    seen = _on_a_terminal(installed, {**env, "GIT_PAGER": "cat", "TERM": "dumb"}, "diff")
    assert "diff --vcontext a/plan.vcontext.json b/plan.vcontext.json" in seen
    assert "todoList.items[t7].status: completed → inProgress" in seen
    pager = {**env, "GIT_PAGER": "sed s/^/PAGER:/", "TERM": "dumb"}
    paged = _on_a_terminal(installed, pager, "diff", "HEAD")
    assert "PAGER:todoList.items[t7].status: completed → inProgress" in paged
    assert "PAGER:+a line" in paged  # git's own lines for other files, in the same pager
    raw = _on_a_terminal(installed, {**env, "GIT_PAGER": "cat"}, "diff", "--no-ext-diff")
    assert "diff --vcontext" not in raw
    logged = _on_a_terminal(
        installed, {**env, "GIT_PAGER": "cat", "TERM": "dumb"}, "log", "-p", "--ext-diff", "-1"
    )
    assert "todoList.items[t7].status: pending → completed" in logged


def test_installing_never_breaks_git_a_stopped_merge_shows_the_conflict(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    """Plain ``git diff`` during a stopped merge is git's combined diff with the markers."""
    installed, _, env = twins
    who = ["-c", "user.name=x", "-c", "user.email=x@y"]
    doc = installed / "plan.vcontext.json"
    git(installed, env, "reset", "-q", "--hard")
    git(installed, env, "switch", "-q", "-c", "other")
    doc.write_text(doc.read_text().replace('"Task 3"', '"Task three"'))
    git(installed, env, *who, "commit", "-q", "-am", "theirs")
    git(installed, env, "switch", "-q", "main")
    doc.write_text(doc.read_text().replace('"Task 3"', '"Task 3!"'))
    git(installed, env, *who, "commit", "-q", "-am", "ours")
    merged = git(installed, env, *who, "merge", "other")
    assert merged.returncode == 1, merged.stdout
    shown = git(installed, env, "diff")
    assert shown.returncode == 0
    assert b"diff --cc plan.vcontext.json" in shown.stdout
    assert b"++<<<<<<<" in shown.stdout
    cached = git(installed, env, "diff", "--cached")
    assert cached.stdout == b"* Unmerged path plan.vcontext.json\n"
    terminal = _on_a_terminal(installed, {**env, "GIT_PAGER": "cat", "TERM": "dumb"}, "diff")
    assert "++<<<<<<<" in terminal


def _moved(repo: Path, env: dict[str, str]) -> str:
    """The installation's program gone (a moved or removed virtualenv): the configured
    values name a path that no longer exists."""
    gone = "/gone/venv/bin/git-vcontext"
    for key in ("merge.vcontext.driver", "diff.vcontext.command"):
        value = git(repo, env, "config", key).stdout.decode().strip()
        program = cli_path()[0]
        assert program in value
        git(repo, env, "config", key, value.replace(program, gone))
    return gone


def test_installing_never_breaks_git_a_moved_installation_leaves_git_working(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    """git diff: git's own patch (it failed: 'unable to read files to diff'); a merge: git's
    line merge with a note (git took the missing driver's exit for a conflict and left ours'
    text, without markers); doctor: the problem and the fix."""
    installed, plain, env = twins
    gone = _moved(installed, env)
    for args in (["diff"], ["diff", "HEAD"], ["diff", "--cached", "-M"]):
        ours, theirs = git(installed, env, *args), git(plain, env, *args)
        assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout), args
    said = git(installed, env, "diff").stderr.decode()
    assert said == (
        f"git-vcontext: {gone} is missing (moved or uninstalled?): git diff shows plain "
        "patches; fix: git vcontext install\n"
    )
    who = ["-c", "user.name=x", "-c", "user.email=x@y"]
    for repo in (installed, plain):
        git(repo, env, *who, "commit", "-q", "-am", "wip")
        git(repo, env, "switch", "-q", "-c", "other", "HEAD~1")
        (repo / "plan.vcontext.json").write_text(_todo(["cancelled"] * 8, extra=1))
        git(repo, env, *who, "commit", "-q", "-am", "theirs")
        git(repo, env, "switch", "-q", "main")
    merged = git(installed, env, *who, "merge", "other")
    plain_merge = git(plain, env, *who, "merge", "other")
    assert merged.returncode == plain_merge.returncode == 1
    note = f"{gone} is missing (moved or uninstalled?): plan.vcontext.json merged by lines"
    assert f"{note}; fix: git vcontext install".encode() in merged.stderr
    assert b"<<<<<<< ours" in (installed / "plan.vcontext.json").read_bytes()
    doctor = subprocess.run(
        [*cli_path(), "doctor"], cwd=installed, env=env, capture_output=True, text=True
    )
    assert doctor.returncode == 1
    assert f"problem: the merge driver's program does not run: {gone}" in doctor.stdout
    assert f"problem: the external diff's program does not run: {gone}" in doctor.stdout
    assert doctor.stdout.count("fix: git vcontext install") >= 2


REPO_COMMANDS = [
    ["validate"],
    ["doctor"],
    ["diff", "HEAD"],
    ["status"],
    ["log", "--", "plan.vcontext.json"],
    ["blame", "plan.vcontext.json"],
    ["install"],
    ["uninstall"],
    ["conflicts"],
    ["sync", "--all"],
    ["fork", "x"],
    ["check", "HEAD"],
    ["install", "--server"],
    ["install", "--server", "--guard"],
    ["uninstall", "--server"],
]


def test_installing_never_breaks_git_another_users_repository_is_one_message_with_gits_fix(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    """Each command said something else ('dubious ownership', 'not a git repository', 'not
    owned by current user'), none the fix; git's fix then makes every command work."""
    if os.geteuid() != 0:
        pytest.skip("making a repository another user's needs root (chown)")
    _, plain, env = twins
    for folder, _, files in os.walk(plain):
        for name in [".", *files]:
            os.chown(os.path.join(folder, name), 65534, 65534)
    fix = f"git config --global --add safe.directory {plain}"
    said = set()
    for args in REPO_COMMANDS:
        proc = subprocess.run(
            [*cli_path(), *args], cwd=plain, env=env, capture_output=True, text=True
        )
        assert proc.returncode == 3, (args, proc.stderr)
        said.add(proc.stderr)
    assert said == {
        f"git-vcontext: error: the repository at {plain} belongs to another user "
        f"(git: dubious ownership); if you trust it: {fix}\n"
    }
    assert subprocess.run(fix.split(), env=env).returncode == 0
    for args in (["validate"], ["status"], ["log", "--", "plan.vcontext.json"]):
        done = subprocess.run([*cli_path(), *args], cwd=plain, env=env, capture_output=True)
        assert done.returncode == 0, (args, done.stderr)


def test_installing_never_breaks_git_outside_a_repository_is_one_message(tmp_path: Path) -> None:
    outside = tmp_path / "nowhere"
    outside.mkdir()
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path)}
    said = set()
    for args in REPO_COMMANDS:
        proc = subprocess.run(
            [*cli_path(), *args], cwd=outside, env=env, capture_output=True, text=True
        )
        assert proc.returncode == 3, (args, proc.stderr)
        said.add(proc.stderr)
    assert said == {
        "git-vcontext: error: not a git repository (or any of the parent directories): "
        f"{outside} (run it in a clone, or git init)\n"
    }


ORDINARY_CHANGES = {
    "top.vcontext.json": "plain",
    "sub/deep/in.vcontext.json": "in a folder",
    "with space.vcontext.json": "a name with a space (git adds a tab to --- and +++)",
    "tool.vcontext.json": "executable on both sides",
    "end.vcontext.json": "no newline at the end",
    "blank.vcontext.json": "an empty line as the last context line",
}


@pytest.mark.parametrize(
    "config",
    [
        [],
        ["-c", "diff.noprefix=true"],
        ["-c", "diff.context=1", "-c", "core.abbrev=12", "-c", "diff.algorithm=histogram"],
        ["-c", "diff.suppressBlankEmpty=true"],
    ],
    ids=["", "noprefix", "context abbrev algorithm", "suppressBlankEmpty"],
)
def test_installing_never_breaks_git_ordinary_changes_into_a_file_take_one_process(
    tmp_path: Path, config: list[str]
) -> None:
    """An ordinary change (same mode, a name git writes as it is) gets git's exact patch
    from one process (``git diff --no-index``, headers by the shell's printf): no awk runs
    (an ``awk`` that fails is first on PATH), and the repository's diff settings apply."""
    home = tmp_path / "home"
    home.mkdir()
    env = bare_env(home)
    who = ["-c", "user.name=x", "-c", "user.email=x@y"]
    repos = tmp_path / "installed", tmp_path / "plain"
    for repo in repos:
        repo.mkdir()
        git(repo, env, "init", "-q", "-b", "main")
        lines = [ATTRIBUTES_HEADER, *ATTRIBUTE_LINES]
        (repo / ".gitattributes").write_text("\n".join(lines) + "\n")
        for name in ORDINARY_CHANGES:
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            text = _todo(["pending"] * 6)
            if name.startswith("blank"):
                text = text.replace('"todoList"', '\n"todoList"') + "\n\n"
            (repo / name).write_text(text if name.startswith("end") else text + "\n")
        (repo / "tool.vcontext.json").chmod(0o755)
        git(repo, env, "add", "-A")
        git(repo, env, *who, "commit", "-q", "-m", "one")
        for name in ORDINARY_CHANGES:
            doc = repo / name
            doc.write_text(doc.read_text().replace('"pending"', '"completed"', 1))
        git(repo, env, *who, "commit", "-q", "-am", "two")
        (repo / "top.vcontext.json").write_text(_todo(["blocked"] * 6) + "\n")
    done = subprocess.run([*cli_path(), "install"], cwd=repos[0], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    no_awk = tmp_path / "no-awk"
    no_awk.mkdir()
    (no_awk / "awk").write_text("#!/bin/sh\necho awk ran >&2\nexit 7\n")
    (no_awk / "awk").chmod(0o755)
    failing_awk = {**env, "PATH": f"{no_awk}{os.pathsep}{env['PATH']}"}
    for args in (["diff", "HEAD~1", "HEAD"], ["diff"], ["diff", "HEAD~1"]):
        ours = git(repos[0], failing_awk, *config, *args)
        theirs = git(repos[1], env, *config, *args)
        assert (ours.returncode, ours.stderr) == (0, b""), (args, ours.stderr)
        assert ours.stdout == theirs.stdout, args
        assert ours.stdout.count(b"\n@@ ") >= 1, args


READ_ONLY_GIT = [
    ["diff"],
    ["diff", "--cached"],
    ["show"],
    ["log", "-p"],
    ["log", "-p", "--follow", "--", "plan.vcontext.json"],
    ["whatchanged", "-p"],
    ["blame", "plan.vcontext.json"],
    ["grep", "--textconv", "-n", "completed", "HEAD"],
    ["format-patch", "--stdout", "-2"],
    ["stash", "show", "-p"],
    ["log", "-p", "--ext-diff"],
]
READ_ONLY_OURS = [
    ["diff"],
    ["diff", "HEAD~2", "HEAD"],
    ["status"],
    ["validate"],
    ["log", "--", "plan.vcontext.json"],
    ["blame", "plan.vcontext.json", "--rev", "HEAD"],  # (the work tree's lines: dated now)
    ["doctor"],
    ["check", "HEAD~2..HEAD"],
]


WRITES_REFUSED = [  # (install: "nothing to change", exit 0, as it should)
    ["uninstall"],
    ["convert", "plan.vcontext.json", "--to", "tron", "-o", "plan.vcontext.tron"],
    ["revert", "HEAD"],
    ["sync", "--all"],
]


def test_installing_never_breaks_git_a_read_only_repository_of_another_user() -> None:
    """Another user (nobody), trusting root's repositories through ``safe.directory`` in
    ``GIT_CONFIG_COUNT``/``KEY``/``VALUE`` (a CI runner's way), with an empty HOME, no
    system configuration and no identity, and no right to write them: git's commands
    answer as in the twin without the tool, ours as they answer root (they said 'not a
    git repository': libgit2 does not read safe.directory from the environment)."""
    if os.geteuid() != 0:
        pytest.skip("another user's read-only repository needs root to set up")
    base = Path(tempfile.mkdtemp(prefix="vcontext-read-only-", dir="/tmp"))
    try:
        base.chmod(0o755)
        become = as_nobody(base)
        root_home, nobody_home = base / "root-home", base / "nobody-home"
        root_home.mkdir()
        nobody_home.mkdir()
        os.chown(nobody_home, NOBODY, NOBODY)
        env = bare_env(root_home)
        installed, plain = base / "installed", base / "plain"
        for repo in (installed, plain):
            repo.mkdir()
            _history(repo, env)
            stash = git(repo, env, "-c", "user.name=x", "-c", "user.email=x@y", "stash", "-q")
            assert stash.returncode == 0, stash.stderr
            assert git(repo, env, "stash", "apply", "-q").returncode == 0
        done = subprocess.run([*cli_path(), "install"], cwd=installed, env=env)
        assert done.returncode == 0
        theirs = bare_env(nobody_home)
        theirs.update(GIT_CONFIG_COUNT="2", GIT_CONFIG_KEY_0="safe.directory")
        theirs.update(GIT_CONFIG_VALUE_0=str(installed), GIT_CONFIG_KEY_1="safe.directory")
        theirs["GIT_CONFIG_VALUE_1"] = str(plain)
        touch = subprocess.run([*become, "touch", str(installed / ".git" / "x")], env=theirs)
        assert touch.returncode != 0  # nobody may not write there

        def nobody(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run(
                [*become, *args], cwd=repo, env=theirs, capture_output=True, timeout=120
            )

        for args in READ_ONLY_GIT:
            ours, twin = nobody(installed, "git", *args), nobody(plain, "git", *args)
            assert (ours.returncode, ours.stdout) == (twin.returncode, twin.stdout), args
            assert ours.stderr == twin.stderr, args
            assert ours.stdout, args
        for round_ in ("no cache yet", "root's cache"):
            for args in READ_ONLY_OURS:
                ours = nobody(installed, *cli_path(), *args)
                roots = subprocess.run(
                    [*cli_path(), *args], cwd=installed, env=env, capture_output=True
                )
                assert (ours.returncode, ours.stdout) == (roots.returncode, roots.stdout), (
                    round_,
                    args,
                    ours.stderr,
                )
                assert ours.stderr == roots.stderr, (round_, args)
                assert b"Traceback" not in ours.stderr
        state = git(installed, env, "status", "--porcelain", "--ignored").stdout
        for args in WRITES_REFUSED:  # what would write: one line naming why, nothing changed
            ours = nobody(installed, *cli_path(), *args)
            assert ours.returncode == 3, (args, ours.stderr)
            assert ours.stderr.count(b"\n") == 1, (args, ours.stderr)
            assert b"internal error" not in ours.stderr, (args, ours.stderr)
            assert b"Traceback" not in ours.stderr
            assert git(installed, env, "status", "--porcelain", "--ignored").stdout == state
        person = {**theirs, "GIT_PAGER": "cat", "TERM": "dumb"}
        seen = _on_a_terminal(installed, person, "diff", user=become)
        assert "todoList.items[t7].status: completed → inProgress" in seen, seen
    finally:
        shutil.rmtree(base, ignore_errors=True)
