"""install / uninstall on awkward .gitattributes files: the user's bytes survive both ways."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import git_vcontext
from helpers.run import run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command must import the code under test, whatever the test's cwd."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


@pytest.mark.parametrize(
    "original",
    [b"*.png binary\r\n*.txt text\r\n", b"*.png binary\n# caf\xe9 (Latin-1)\n"],
    ids=["crlf", "not-utf8"],
)
def test_uninstall_removes_exactly_what_install_added_to_gitattributes(
    git_repo: Path, original: bytes
) -> None:
    attributes = git_repo / ".gitattributes"
    attributes.write_bytes(original)
    done = run_cli("install", "--no-hooks", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert attributes.read_bytes().startswith(original)
    assert b"merge=vcontext" in attributes.read_bytes()
    undone = run_cli("uninstall", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert attributes.read_bytes() == original


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_gitattributes_that_is_a_directory_is_a_one_line_operational_error(
    git_repo: Path, command: str
) -> None:
    (git_repo / ".gitattributes").mkdir()
    proc = run_cli(command, "--no-hooks" if command == "install" else "--local", cwd=git_repo)
    assert proc.returncode == 3
    err = proc.stderr.decode()
    assert err.count("\n") == 1
    assert "is a directory" in err
    assert "internal error" not in err


def _todo(*ids: str) -> str:
    items = ", ".join(f'{{"id": "{i}", "title": "{i}", "status": "pending"}}' for i in ids)
    return (
        '{\n  "vContextInfo": {"version": "0.4"},\n'
        f'  "todoList": {{\n    "items": [{items}]\n  }}\n}}\n'
    )


def test_install_global_makes_every_repository_merge_by_meaning_and_uninstall_undoes_it(
    git_repo: Path,
) -> None:
    """No .gitattributes in the repository: the user-wide install alone routes the merge."""
    done = run_cli("install", "--global", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert not (git_repo / ".gitattributes").exists()
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()  # hooks are per repository
    doc = git_repo / "todo.vcontext.json"
    doc.write_text(_todo("t1"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    run_git(git_repo, "switch", "-q", "-c", "other")
    doc.write_text(_todo("t1", "t3"))
    run_git(git_repo, "commit", "-q", "-am", "theirs adds t3")
    run_git(git_repo, "switch", "-q", "main")
    doc.write_text(_todo("t1", "t2"))
    run_git(git_repo, "commit", "-q", "-am", "ours adds t2")
    merged = run_git(git_repo, "merge", "-q", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert [i["id"] for i in json.loads(doc.read_text())["todoList"]["items"]] == ["t1", "t2", "t3"]

    undone = run_cli("uninstall", "--global", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert (
        run_git(git_repo, "config", "--global", "--get-regexp", "vcontext", check=False).stdout
        == ""
    )
    attrs = run_git(git_repo, "check-attr", "merge", "--", "todo.vcontext.json").stdout
    assert attrs.strip().endswith("unspecified")


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_local_and_global_together_is_a_usage_error_that_changes_nothing(
    git_repo: Path, command: str
) -> None:
    proc = run_cli(command, "--local", "--global", cwd=git_repo)
    assert proc.returncode == 2
    assert b"--local and --global cannot be used together" in proc.stderr
    assert not (git_repo / ".gitattributes").exists()
    assert (
        run_git(git_repo, "config", "--global", "--get-regexp", "vcontext", check=False).stdout
        == ""
    )
    assert (
        run_git(git_repo, "config", "--local", "--get-regexp", "vcontext", check=False).stdout == ""
    )


def _config(repo: Path, key: str) -> str:
    return run_git(repo, "config", "--local", "--get", key, check=False).stdout.strip()


def test_a_foreign_driver_is_refused_with_a_hint_kept_by_uninstall_and_replaced_by_force(
    git_repo: Path,
) -> None:
    """PRODUCT.md install: never clobbers foreign config; refuses with a hint, --force overrides."""
    run_git(git_repo, "config", "merge.vcontext.driver", "other-tool %O %A %B")
    refused = run_cli("install", "--no-hooks", cwd=git_repo)
    assert refused.returncode == 2
    assert refused.stderr.count(b"\n") == 1
    assert b"--force" in refused.stderr
    assert _config(git_repo, "merge.vcontext.driver") == "other-tool %O %A %B"
    assert not (git_repo / ".gitattributes").exists()  # nothing half-installed
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.driver") == "other-tool %O %A %B"
    forced = run_cli("install", "--no-hooks", "--force", cwd=git_repo)
    assert forced.returncode == 0, forced.stderr
    assert "merge-driver" in _config(git_repo, "merge.vcontext.driver")


def test_other_attributes_for_our_patterns_are_refused_unless_forced(git_repo: Path) -> None:
    attributes = git_repo / ".gitattributes"
    attributes.write_text("*.vcontext.json merge=union\n")
    refused = run_cli("install", "--no-hooks", cwd=git_repo)
    assert refused.returncode == 2
    assert b"merge=union" in refused.stderr
    assert attributes.read_text() == "*.vcontext.json merge=union\n"
    assert run_cli("install", "--no-hooks", "--force", cwd=git_repo).returncode == 0
    assert "merge=union" not in attributes.read_text()
    assert "*.vcontext.json merge=vcontext" in attributes.read_text()


def _husky_layout(repo: Path) -> None:
    """What husky 9 writes (``npx husky init``): hooks in .husky/_ that run .husky/<hook>."""
    folder = repo / ".husky" / "_"
    folder.mkdir(parents=True)
    (folder / "h").write_text(
        "#!/usr/bin/env sh\n# husky\n"
        's=$(dirname "$(dirname "$0")")/$(basename "$0")\n'
        '[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n'
    )
    (folder / "pre-push").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    run_git(repo, "config", "core.hooksPath", ".husky/_")


def test_core_hooks_path_of_a_hook_manager_installs_the_rest_and_says_what_to_add(
    git_repo: Path,
) -> None:
    """Driver and attributes are installed; the hook manager's files are not touched, and
    install names the line to add (it used to install nothing and exit 2)."""
    _husky_layout(git_repo)
    before = sorted(p.name for p in (git_repo / ".husky" / "_").iterdir())
    done = run_cli("install", cwd=git_repo)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert "merge-driver" in _config(git_repo, "merge.vcontext.driver")
    assert "*.vcontext.json merge=vcontext" in (git_repo / ".gitattributes").read_text()
    assert sorted(p.name for p in (git_repo / ".husky" / "_").iterdir()) == before
    assert "except the pre-push hook" in out
    assert "run by husky" in out
    assert (
        'Add this line to .husky/pre-push (create it if needed): git vcontext hook pre-push "$@"'
        in out
    )
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 1
    assert b"core.hooksPath is" in doctor.stdout
    (git_repo / ".husky" / "pre-push").write_text('git vcontext hook pre-push "$@"\n')
    doctor = run_cli("doctor", cwd=git_repo)
    assert b"the pre-push check is called from" in doctor.stdout, doctor.stdout
    assert b"pre-push hook not installed" not in doctor.stdout


@pytest.mark.parametrize(
    ("manager_file", "says"),
    [
        ("lefthook.yml", "use_stdin: true"),
        (".pre-commit-config.yaml", "pre-commit install --hook-type pre-push"),
    ],
)
def test_lefthook_and_pre_commit_are_told_apart(
    git_repo: Path, manager_file: str, says: str
) -> None:
    (git_repo / manager_file).write_text("# the team's hook manager\n")
    run_git(git_repo, "config", "core.hooksPath", ".hooks")
    done = run_cli("install", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert says in done.stdout.decode()
    assert not (git_repo / ".hooks").exists()


def test_a_hooks_folder_of_the_repository_is_not_written_into(git_repo: Path) -> None:
    (git_repo / ".githooks").mkdir()
    (git_repo / ".githooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    run_git(git_repo, "config", "core.hooksPath", ".githooks")
    done = run_cli("install", cwd=git_repo)
    out = done.stdout.decode()
    assert done.returncode == 0
    assert "Add this line to .githooks/pre-push" in out
    assert (git_repo / ".githooks" / "pre-push").read_text() == "#!/bin/sh\nexit 0\n"
    forced = run_cli("install", "--force", cwd=git_repo)  # this machine's shim, chained
    assert forced.returncode == 0
    chained = git_repo / ".githooks" / "pre-push.before-vcontext"
    assert chained.read_text() == "#!/bin/sh\nexit 0\n"


def test_a_plain_hooks_folder_outside_the_repository_gets_the_chained_hook(
    git_repo: Path, tmp_path: Path
) -> None:
    """A user-wide core.hooksPath (~/.githooks): the shim goes there, the hook that was
    there runs first, and a push through git runs both; uninstall puts it back."""
    folder = tmp_path / "githooks"
    folder.mkdir()
    mine = "#!/bin/sh\necho mine-ran >&2\n"
    (folder / "pre-push").write_text(mine)
    (folder / "pre-push").chmod(0o755)
    run_git(git_repo, "config", "--global", "core.hooksPath", str(folder))
    done = run_cli("install", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert f"installed {folder / 'pre-push'}" in done.stdout.decode()
    assert (folder / "pre-push.before-vcontext").read_text() == mine
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()
    pushed = _push_a_bad_status(git_repo, tmp_path)
    assert pushed.returncode == 1
    assert "mine-ran" in pushed.stderr
    assert "[schema]" in pushed.stderr
    doctor = run_cli("doctor", cwd=git_repo)
    assert b"pre-push hook installed and runs" in doctor.stdout, doctor.stdout
    undone = run_cli("uninstall", cwd=git_repo)
    assert undone.returncode == 0
    assert (folder / "pre-push").read_text() == mine
    assert not (folder / "pre-push.before-vcontext").exists()


def _push_a_bad_status(
    repo: Path, tmp_path: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Commit a document with a bad status and push it to a new bare remote."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", str(remote))
    run_git(repo, "remote", "add", "origin", str(remote))
    (repo / "todo.vcontext.json").write_text(_todo("t1").replace("pending", "done"))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "bad status")
    return subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=repo, capture_output=True, text=True, env=env
    )


def _husky_bin() -> Path:
    """husky's own installer (``cd DIR && npm install husky``, then HUSKY_DIR=DIR)."""
    import os
    import shutil

    base = os.environ.get("HUSKY_DIR")
    script = Path(base) / "node_modules" / "husky" / "bin.js" if base else None
    if script is None or not script.is_file() or shutil.which("node") is None:
        pytest.skip("husky not available: needs node and HUSKY_DIR/node_modules/husky")
    return script


def test_the_advice_for_real_husky_makes_pushes_checked(git_repo: Path, tmp_path: Path) -> None:
    """The line install advises, added to .husky/pre-push, runs the check through husky."""
    import os
    import sys

    husky = _husky_bin()
    subprocess.run(["node", str(husky)], cwd=git_repo, check=True, capture_output=True)
    done = run_cli("install", cwd=git_repo)
    line = next(x for x in done.stdout.decode().splitlines() if "Add this line" in x)
    (git_repo / ".husky" / "pre-push").write_text(line.split(": ", 1)[1] + "\n")
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    pushed = _push_a_bad_status(git_repo, tmp_path, {**os.environ, "PATH": path})
    assert pushed.returncode != 0, pushed.stderr
    assert "[schema]" in pushed.stderr, pushed.stderr


def test_install_sets_the_external_diff_and_says_commit_only_when_gitattributes_changed(
    git_repo: Path,
) -> None:
    """Installing never breaks git: no textconv (blame, grep, patches stay raw) and no
    textconv cache (git writes it as commits: no identity, no git diff); a second install
    changes nothing and says nothing about committing .gitattributes."""
    first = run_cli("install", "--no-hooks", cwd=git_repo).stdout.decode()
    assert "set diff.vcontext.command" in first
    assert _config(git_repo, "diff.vcontext.textconv") == ""
    assert _config(git_repo, "diff.vcontext.cachetextconv") == ""
    assert "Commit .gitattributes" in first
    again = run_cli("install", "--no-hooks", cwd=git_repo).stdout.decode()
    assert again == "git-vcontext is installed (nothing to change)\n"
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert run_git(git_repo, "config", "--get-regexp", "vcontext", check=False).stdout == ""


def test_installing_never_breaks_git_an_earlier_install_is_named_by_doctor_and_migrated(
    git_repo: Path,
) -> None:
    """An install from before issue 35 (textconv, cached): doctor names it with the fix;
    install again moves to the external diff; a textconv the user opted into is kept."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    command = " ".join(_config(git_repo, "difftool.vcontext.cmd").split()[:1])
    run_git(git_repo, "config", "--unset", "diff.vcontext.command")
    run_git(git_repo, "config", "diff.vcontext.textconv", f"{command} textconv")
    run_git(git_repo, "config", "diff.vcontext.cachetextconv", "true")
    doctor = run_cli("doctor", cwd=git_repo).stdout.decode()
    assert "problem: diff.vcontext.textconv with cachetextconv=true (an earlier install)" in doctor
    assert "fix: git vcontext install" in doctor
    again = run_cli("install", "--no-hooks", cwd=git_repo).stdout.decode()
    assert "removed diff.vcontext.textconv and diff.vcontext.cachetextconv" in again
    assert _config(git_repo, "diff.vcontext.cachetextconv") == ""
    assert "diff " in _config(git_repo, "diff.vcontext.command")
    run_git(git_repo, "config", "diff.vcontext.textconv", f"{command} textconv")  # opted in
    assert "nothing to change" in run_cli("install", "--no-hooks", cwd=git_repo).stdout.decode()
    assert _config(git_repo, "diff.vcontext.textconv") == f"{command} textconv"
    doctor = run_cli("doctor", cwd=git_repo).stdout.decode()
    assert "note: diff.vcontext.textconv is set (your choice)" in doctor


def test_uninstall_global_leaves_no_empty_files_or_folders_behind(git_repo: Path) -> None:
    """install --global created ~/.gitconfig and ~/.config/git/attributes; uninstall left an
    empty ~/.gitconfig and an empty ~/.config/git/."""
    import os

    home = Path(os.environ["HOME"])
    config, folder = home / ".gitconfig", home / ".config" / "git"
    assert not config.exists()
    assert not folder.exists()
    assert run_cli("install", "--global", cwd=git_repo).returncode == 0
    assert config.is_file()
    assert (folder / "attributes").is_file()
    undone = run_cli("uninstall", "--global", cwd=git_repo)
    assert undone.returncode == 0, undone.stderr
    assert not config.exists()
    assert not folder.exists()
    assert (home / ".config").is_dir()  # only git's own folder goes


def test_uninstall_global_keeps_the_users_other_settings_and_files(git_repo: Path) -> None:
    import os

    home = Path(os.environ["HOME"])
    run_git(git_repo, "config", "--global", "user.signingkey", "ABC")
    folder = home / ".config" / "git"
    folder.mkdir(parents=True)
    (folder / "ignore").write_text("*.swp\n")
    assert run_cli("install", "--global", cwd=git_repo).returncode == 0
    assert run_cli("uninstall", "--global", cwd=git_repo).returncode == 0
    assert "signingkey = ABC" in (home / ".gitconfig").read_text()
    assert (folder / "ignore").read_text() == "*.swp\n"
    assert not (folder / "attributes").exists()


def test_a_hooks_folder_inside_the_git_directory_is_this_machines_own(git_repo: Path) -> None:
    """Not shared through the repository (git never tracks .git/): the shim goes there."""
    run_git(git_repo, "config", "core.hooksPath", ".git/my-hooks")
    done = run_cli("install", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert (git_repo / ".git" / "my-hooks" / "pre-push").is_file()
    assert b"except the pre-push hook" not in done.stdout


def test_m16_install_names_the_virtual_base_driver_doctor_checks_it_uninstall_removes_it(
    git_repo: Path,
) -> None:
    """merge.vcontext.recursive -> vcontext-base, the driver of criss-cross inner merges."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "vcontext-base"
    base_driver = _config(git_repo, "merge.vcontext-base.driver")
    assert 'merge-driver --virtual-base "$@"' in base_driver
    assert base_driver.endswith(" %O %A %B -p %P -l %L")
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 0
    assert b"criss-cross merges keep a structural" in doctor.stdout
    run_git(git_repo, "config", "--unset", "merge.vcontext.recursive")  # an older install
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 1
    assert b"problem: merge.vcontext.recursive is not set" in doctor.stdout
    assert run_cli("install", cwd=git_repo).returncode == 0  # install repairs it
    assert run_cli("doctor", cwd=git_repo).returncode == 0
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    left = run_git(git_repo, "config", "--local", "--get-regexp", "^merge\\.", check=False)
    assert left.stdout == ""
    assert "[merge" not in (git_repo / ".git" / "config").read_text()  # no empty sections


def test_a_users_own_recursive_driver_is_kept_and_said_uninstall_leaves_it_force_replaces_it(
    git_repo: Path,
) -> None:
    """merge.vcontext.recursive runs no git-vcontext: a setting, kept like cachetextconv."""
    run_git(git_repo, "config", "merge.vcontext.recursive", "binary")
    kept = run_cli("install", "--no-hooks", cwd=git_repo)
    assert kept.returncode == 0, kept.stderr
    assert b"kept merge.vcontext.recursive = binary" in kept.stdout
    assert _config(git_repo, "merge.vcontext.recursive") == "binary"
    doctor = run_cli("doctor", cwd=git_repo)
    assert doctor.returncode == 1
    assert b"merge.vcontext.recursive is set to 'binary'" in doctor.stdout
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "binary"
    assert run_cli("install", "--no-hooks", "--force", cwd=git_repo).returncode == 0
    assert _config(git_repo, "merge.vcontext.recursive") == "vcontext-base"


@pytest.mark.parametrize(
    "path",
    [
        "a.vcontext.json",
        "a.vcontext.tron",
        ".vcontext/todo.json",
        "docs/a.vbrief.json",
        "docs/a.vbrief.tron",
        ".work/events.jsonl",
        ".work/templates/t.toml",
        ".work/processes/p.json",
        ".work/evidence/e.json",
    ],
)
def test_install_routes_every_product_pattern_to_the_driver(git_repo: Path, path: str) -> None:
    """PRODUCT.md Names: the attribute patterns install writes, *.vbrief.tron included."""
    done = run_cli("install", "--no-hooks", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    attrs = run_git(git_repo, "check-attr", "merge", "diff", "--", path).stdout
    assert f"{path}: merge: vcontext" in attrs
    assert f"{path}: diff: vcontext" in attrs


def test_installing_never_breaks_git_uninstall_leaves_a_committed_gitattributes_as_it_was(
    git_repo: Path, tmp_path: Path
) -> None:
    """A fresh clone of a repository whose team committed install's lines: install adds
    nothing there, so uninstall removes nothing there (it emptied the team's file)."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    run_git(git_repo, "add", ".gitattributes")
    run_git(git_repo, "commit", "-q", "-m", "attributes")
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(git_repo), str(clone))
    committed = (clone / ".gitattributes").read_bytes()
    assert run_cli("install", cwd=clone).returncode == 0
    assert run_cli("uninstall", cwd=clone).returncode == 0
    assert (clone / ".gitattributes").read_bytes() == committed
    assert run_git(clone, "status", "--porcelain").stdout == ""
    assert run_git(clone, "config", "--local", "--get-regexp", "vcontext", check=False).stdout == ""


def test_uninstall_of_lines_this_install_added_and_the_user_committed_says_to_commit_it(
    git_repo: Path,
) -> None:
    """``uninstall`` removes what this install added, also from a ``.gitattributes`` the user
    committed since; git then reads the committed copy (a deleted file's from the index),
    so the drivers' patterns stay until the change is committed: it says so with the
    command, and that command leaves nothing routed and nothing to commit."""
    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    run_git(git_repo, "add", ".gitattributes")
    run_git(git_repo, "commit", "-q", "-m", "attributes")
    done = run_cli("uninstall", cwd=git_repo)
    assert done.returncode == 0
    said = [line for line in done.stdout.decode().splitlines() if "is committed" in line]
    assert len(said) == 1, done.stdout
    command = said[0].split(": git reads the committed patterns until the change is: ")[1]
    command = command.split(" (or keep them: ")[0]
    routed = run_git(git_repo, "check-attr", "merge", "--", "todo.vcontext.json").stdout
    assert routed.strip().endswith("vcontext")  # the index's copy, until committed
    subprocess.run(command, shell=True, cwd=git_repo, check=True, capture_output=True)
    assert run_git(git_repo, "status", "--porcelain").stdout == ""
    routed = run_git(git_repo, "check-attr", "merge", "--", "todo.vcontext.json").stdout
    assert routed.strip().endswith("unspecified")


def test_uninstall_commit_advice_for_a_repository_whose_path_holds_a_newline_is_one_line(
    tmp_path: Path,
) -> None:
    """The advice quotes the repository's path as every other piece of advice does
    (``command_word``: ``$'…'`` for a control character), so a path holding a newline keeps
    the advice on one line, and the command it names, run in bash, commits the change."""
    repo = tmp_path / "team\nmemory x"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.name", "Pat"), ("user.email", "pat@example.com")):
        run_git(repo, "config", key, value)
    assert run_cli("install", "--no-hooks", cwd=repo).returncode == 0
    run_git(repo, "add", ".gitattributes")
    run_git(repo, "commit", "-q", "-m", "attributes")
    done = run_cli("uninstall", cwd=repo)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.decode().splitlines() if "is committed" in line]
    assert len(said) == 1, done.stdout
    command = said[0].split(": git reads the committed patterns until the change is: ")[1]
    command = command.split(" (or keep them: ")[0]
    assert "$'" in command, command
    subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, check=True, capture_output=True
    )  # from elsewhere: -C names the repository
    assert run_git(repo, "status", "--porcelain").stdout == ""


def test_installing_never_breaks_git_uninstall_removes_only_the_lines_this_install_added(
    git_repo: Path,
) -> None:
    from git_vcontext.setup.config import ATTRIBUTE_LINES

    team = "*.png binary\n" + "\n".join(ATTRIBUTE_LINES[:3]) + "\n"
    (git_repo / ".gitattributes").write_text(team)
    done = run_cli("install", "--no-hooks", cwd=git_repo)
    assert f"added {len(ATTRIBUTE_LINES) - 3} pattern(s)" in done.stdout.decode()
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert (git_repo / ".gitattributes").read_text() == team


def test_installing_never_breaks_git_help_works_without_man(git_repo: Path, tmp_path: Path) -> None:
    """Slim images have no man: 'git vcontext --help' (git help vcontext) failed there ('no
    man viewer handled the request'); it prints the command's own help, and git help of
    other pages says what is missing as before."""
    import os
    import shutil
    import sys

    assert run_cli("install", "--no-hooks", cwd=git_repo).returncode == 0
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "git").symlink_to(shutil.which("git") or "git")
    (folder / "git-vcontext").symlink_to(Path(sys.executable).with_name("git-vcontext"))
    env = {**os.environ, "PATH": str(folder)}
    helped = subprocess.run(
        ["git", "vcontext", "--help"], cwd=git_repo, env=env, capture_output=True, text=True
    )
    assert helped.returncode == 0, helped.stderr
    assert "Usage: git-vcontext" in helped.stdout
    other = subprocess.run(["git", "help", "log"], cwd=git_repo, env=env, capture_output=True)
    assert other.returncode != 0
    if shutil.which("man"):
        paged = subprocess.run(
            ["git", "help", "log"],
            cwd=git_repo,
            capture_output=True,
            env={**os.environ, "MANPAGER": "cat", "PAGER": "cat"},
        )
        assert paged.returncode == 0  # with man, git help is man's, as before
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert _config(git_repo, "man.viewer") == ""


def test_installing_never_breaks_git_doctor_says_how_to_merge_several_agents(
    git_repo: Path,
) -> None:
    """git merge agents/a agents/b (an octopus) ignores merge drivers: doctor says so."""
    (git_repo / "todo.vcontext.json").write_text(_todo("t1"))
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "base")
    assert run_cli("install", cwd=git_repo).returncode == 0
    assert b"octopus" not in run_cli("doctor", cwd=git_repo).stdout
    for agent in ("a", "b"):
        assert run_cli("fork", agent, cwd=git_repo).returncode == 0
    doctor = run_cli("doctor", cwd=git_repo).stdout.decode()
    assert "note: 2 agent branches: merge them one at a time" in doctor
    assert "git vcontext sync --all" in doctor


def test_installing_never_breaks_git_a_man_viewer_set_twice_is_kept(git_repo: Path) -> None:
    """A key set more than once (man.viewer lists viewers) is the user's: install keeps it
    (it failed: 'cannot overwrite multiple values with a single value')."""
    run_git(git_repo, "config", "--add", "man.viewer", "woman")
    run_git(git_repo, "config", "--add", "man.viewer", "konqueror")
    done = run_cli("install", "--no-hooks", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert b"kept man.viewer" in done.stdout
    viewers = run_git(git_repo, "config", "--get-all", "man.viewer").stdout.split()
    assert viewers == ["woman", "konqueror"]
    assert run_cli("uninstall", cwd=git_repo).returncode == 0
    assert run_git(git_repo, "config", "--get-all", "man.viewer").stdout.split() == viewers


def _conflicted_gitattributes(repo: Path) -> bytes:
    """A real merge of two edits of .gitattributes left conflicted: its bytes."""
    attributes = repo / ".gitattributes"
    attributes.write_text("*.png binary\n")
    run_git(repo, "add", ".gitattributes")
    run_git(repo, "commit", "-qm", "attributes")
    run_git(repo, "switch", "-qc", "other")
    attributes.write_text("*.png -diff\n")
    run_git(repo, "commit", "-qam", "theirs")
    run_git(repo, "switch", "-q", "-")
    attributes.write_text("*.png binary -text\n")
    run_git(repo, "commit", "-qam", "ours")
    assert run_git(repo, "merge", "other", check=False).returncode == 1
    text = attributes.read_bytes()
    assert text.startswith(b"<<<<<<< ")
    return text


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_install_refuses_a_gitattributes_with_conflict_markers_as_an_operational_error(
    git_repo: Path, force: bool
) -> None:
    """Command-line contract: an expected operational error is exit 3 and one line; install
    adds nothing to (and sets nothing up around) a .gitattributes left conflicted."""
    before = _conflicted_gitattributes(git_repo)
    proc = run_cli("install", *(["--force"] if force else []), cwd=git_repo)
    assert proc.returncode == 3, proc.stderr
    err = proc.stderr.decode()
    assert err.count("\n") == 1, err
    assert "has unresolved conflict markers (line 1): resolve them first" in err
    assert (git_repo / ".gitattributes").read_bytes() == before
    assert run_git(git_repo, "config", "merge.vcontext.driver", check=False).stdout == ""
    assert not (git_repo / ".git" / "hooks" / "pre-push").exists()


def test_uninstall_refuses_a_gitattributes_with_conflict_markers_and_changes_nothing(
    git_repo: Path,
) -> None:
    """Command-line contract (exit 3, one line): uninstall edits .gitattributes, so a file
    left conflicted is refused before anything (config, hook, attributes) is removed."""
    assert run_cli("install", cwd=git_repo).returncode == 0
    before = _conflicted_gitattributes(git_repo)
    proc = run_cli("uninstall", cwd=git_repo)
    assert proc.returncode == 3, proc.stderr
    err = proc.stderr.decode()
    assert err.count("\n") == 1, err
    assert "has unresolved conflict markers" in err
    assert "then uninstall again" in err
    assert (git_repo / ".gitattributes").read_bytes() == before
    assert run_git(git_repo, "config", "merge.vcontext.driver").stdout.strip()
    assert (git_repo / ".git" / "hooks" / "pre-push").exists()


def test_doctor_reports_a_gitattributes_with_conflict_markers(git_repo: Path) -> None:
    _conflicted_gitattributes(git_repo)
    proc = run_cli("doctor", cwd=git_repo)
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "problem: " in out
    assert "has unresolved conflict markers (line 1), which git reads as patterns" in out
    run_git(git_repo, "checkout", "--theirs", "--", ".gitattributes")
    run_git(git_repo, "add", ".gitattributes")
    assert run_cli("install", cwd=git_repo).returncode == 0
    assert "conflict markers" not in run_cli("doctor", cwd=git_repo).stdout.decode()


def _environment(folder: Path) -> tuple[Path, Path]:
    """A virtual environment in ``folder`` that imports this checkout, with the console
    script as pip installs it (its Python's path on the first line, as it is): its python
    and its script."""
    import sys
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = Path(git_vcontext.__file__).resolve().parents[1]  # this checkout, its dependencies
    Path(site, "this-checkout.pth").write_text(f"{here}\n{sysconfig.get_paths()['purelib']}\n")
    script = folder / "bin" / "git-vcontext"
    shipped = Path(__file__).resolve().parents[2] / "bin" / "git-vcontext"  # (an installed
    # package, as in CI, has no bin/ beside it: the checkout these tests belong to has)
    body = shipped.read_text().split("\n", 1)[1]
    script.write_text(f"#!{python}\n{body}")
    script.chmod(0o751)
    return python, script


def test_installing_never_breaks_git_in_a_virtual_environment_whose_path_holds_a_space(
    tmp_path: Path,
) -> None:
    """pip writes the installing Python's path as the console script's first line as it is;
    the system cuts that line at a space, so in ``my projects/.venv`` the script cannot
    start. ``doctor`` (run as ``python -m git_vcontext``) names that and its fix; the fix,
    ``python -m git_vcontext install``, rewrites the script to start through ``/bin/sh``
    (same mode), and then ``git vcontext`` as typed runs: doctor finds everything in place,
    and a push goes through the hook. PRODUCT.md, "Installing never breaks git": after an
    upgrade (pip writes the first line again) the pre-push hook refuses with the fix that
    works, never the shell's bare "not found"."""
    import os
    import stat

    python, script = _environment(tmp_path / "my projects" / ".venv")
    with pytest.raises(FileNotFoundError):  # the system cannot start it: its interpreter ".../my"
        subprocess.run([str(script), "--version"], capture_output=True, check=False)

    repo = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    for key, value in (("user.name", "Pat"), ("user.email", "pat@example.com")):
        run_git(repo, "config", key, value)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{script.parent}{os.pathsep}{env['PATH']}"
    doctor = subprocess.run(
        [str(python), "-m", "git_vcontext", "doctor"], cwd=repo, env=env, capture_output=True
    )
    said = doctor.stdout.decode()
    assert doctor.returncode == 1, said
    assert f"problem: {script} cannot start" in said
    assert "fix: python -m git_vcontext install" in said
    assert "'python -m git_vcontext install' fixes" in said  # the summary too: it runs
    installed = subprocess.run(
        [str(python), "-m", "git_vcontext", "install"], cwd=repo, env=env, capture_output=True
    )
    assert installed.returncode == 0, installed.stderr
    assert f"rewrote {script} to start its Python through /bin/sh" in installed.stdout.decode()
    assert script.read_text().startswith("#!/bin/sh\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o751

    assert subprocess.run(["git", "vcontext", "--version"], env=env).returncode == 0
    doctor = subprocess.run(["git", "vcontext", "doctor"], cwd=repo, env=env, capture_output=True)
    assert doctor.returncode == 0, doctor.stdout.decode() + doctor.stderr.decode()
    assert "cannot start" not in doctor.stdout.decode()
    todo = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}
    (repo / "todo.vcontext.json").write_text(json.dumps(todo))
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-qm", "base")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    pushed = subprocess.run(
        ["git", "push", str(remote), "main"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "no remote-tracking refs" in pushed.stderr  # the hook ran, and said so
    again = subprocess.run(["git", "vcontext", "install"], cwd=repo, env=env, capture_output=True)
    assert again.returncode == 0
    assert b"rewrote" not in again.stdout  # once is enough

    # pip installs again (an upgrade): the script's first line is the Python's path again,
    # which the system cannot start. The hook said only the shell's "…git-vcontext: not
    # found" and git "failed to push" (found in trial9): it refuses with the fix instead,
    # and that fix leads to a push that goes through the hook.
    script.write_text(f"#!{python}\n" + script.read_text().split("\n", 3)[3])
    (repo / "todo.vcontext.json").write_text(json.dumps({**todo, "todoList": {"items": [
        {"id": "t1", "title": "One", "status": "pending"}]}}))  # fmt: skip
    run_git(repo, "commit", "-qam", "one")
    refused = subprocess.run(
        ["git", "push", str(remote), "main"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert refused.returncode != 0
    assert f"{script} cannot start (its first line?): push refused" in refused.stderr
    assert f'fix: "{python}" -m git_vcontext install' in refused.stderr, refused.stderr
    fixed = subprocess.run(
        [str(python), "-m", "git_vcontext", "install"], cwd=repo, env=env, capture_output=True
    )
    assert b"rewrote" in fixed.stdout
    pushed = subprocess.run(
        ["git", "push", str(remote), "main"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert pushed.returncode == 0, pushed.stderr
    assert "cannot start" not in pushed.stderr


def test_install_never_touches_a_console_script_that_starts(tmp_path: Path) -> None:
    """Only a script whose first line cannot start is rewritten: in a path without spaces
    the console script stays byte for byte as pip wrote it."""
    import os

    python, script = _environment(tmp_path / "projects" / ".venv")
    before = script.read_bytes()
    repo = tmp_path / "repo"
    run_git(tmp_path, "init", "-q", "-b", "main", str(repo))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed = subprocess.run(
        [str(python), "-m", "git_vcontext", "install"], cwd=repo, env=env, capture_output=True
    )
    assert installed.returncode == 0, installed.stderr
    assert b"rewrote" not in installed.stdout
    assert script.read_bytes() == before


def test_install_server_makes_a_console_script_that_cannot_start_start_as_install_does(
    tmp_path: Path,
) -> None:
    """PRODUCT.md, "Installing never breaks git" and the command-line contract (doctor
    reports what is missing and its fix): in the bare repository agents push to, doctor
    names a console script that cannot start (a virtual environment in ``my projects/``)
    and the fix that runs there, ``python -m git_vcontext install --server``; that install
    rewrites the script as a local install does (it did not: 'git vcontext' kept failing on
    the server), and then ``git vcontext doctor`` as typed runs and finds everything in
    place, and a push goes through the guard."""
    import os

    python, script = _environment(tmp_path / "my projects" / ".venv")
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{script.parent}{os.pathsep}{env['PATH']}"

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(argv, cwd=remote, env=env, capture_output=True, text=True)

    doctor = run(str(python), "-m", "git_vcontext", "doctor")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    fix = "python -m git_vcontext install --server"
    assert f"problem: {script} cannot start" in doctor.stdout, doctor.stdout
    assert f"fix: {fix} (rewrites it" in doctor.stdout, doctor.stdout
    assert doctor.stdout.rstrip().endswith(f"'{fix}' fixes most of them"), doctor.stdout
    installed = run(str(python), "-m", "git_vcontext", "install", "--server")
    assert installed.returncode == 0, installed.stderr
    assert f"rewrote {script} to start its Python through /bin/sh" in installed.stdout
    doctor = run("git", "vcontext", "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "cannot start" not in doctor.stdout
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(remote), str(clone))
    todo = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}
    (clone / "todo.vcontext.json").write_text(json.dumps(todo))
    run_git(clone, "add", "-A")
    run_git(clone, "-c", "user.name=Pat", "-c", "user.email=p@e", "commit", "-qm", "base")
    pushed = subprocess.run(["git", "push", "origin", "main"], cwd=clone, env=env, text=True,
                            capture_output=True)  # fmt: skip
    assert pushed.returncode == 0, pushed.stderr


def test_the_readmes_way_out_runs_the_demo_in_a_folder_whose_path_holds_a_space(
    tmp_path: Path,
) -> None:
    """A new user's clone in ``~/my projects/``: the README's first line (after ``pip install
    .``) runs ``git vcontext demo``, which git cannot start there ("Maybe git-vcontext is
    broken?": the script's first line is cut at the space). The README's first screen names
    the way out, ``python -m git_vcontext demo``: it runs the demo there, and after it ``git
    vcontext`` runs (PRODUCT.md, "Installing never breaks git")."""
    import os
    import shlex

    readme = Path(__file__).resolve().parents[2] / "README.md"
    if not readme.exists():
        pytest.skip("needs the source checkout (README.md)")
    text = readme.read_text("utf-8")
    first = next(line for line in text.splitlines() if "pip install ." in line)
    assert first.rsplit("&&", 1)[1].split() == ["git", "vcontext", "demo"]
    screen = text.split("\n## ", 1)[0]
    assert "holds a\nspace" in screen or "holds a space" in screen
    demo = shlex.split("python -m git_vcontext demo")
    assert "`python -m git_vcontext demo`" in screen
    _python, script = _environment(tmp_path / "my projects" / ".venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{script.parent}{os.pathsep}{env['PATH']}"  # . .venv/bin/activate
    env["VIRTUAL_ENV"] = str(script.parent.parent)
    ran = subprocess.run(demo, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    assert f"rewrote {script}" in ran.stdout
    after = subprocess.run(["git", "vcontext", "--version"], env=env, capture_output=True)
    assert after.returncode == 0, after.stderr


def _hooks_by_git(where: Path) -> Path:
    """Where git itself runs hooks from (``git rev-parse --git-path hooks``, said relative
    to ``where``, the top of a work tree or a bare repository)."""
    said = run_git(where, "rev-parse", "--git-path", "hooks").stdout.strip()
    return (where / said).resolve()


def _included_hooks_path(repo: Path, tmp_path: Path, value: str) -> None:
    """core.hooksPath from a file included only for repositories with a remote at
    example.com (``includeIf "hasconfig:remote.*.url:…"``, git 2.36), which libgit2 does
    not evaluate."""
    run_git(repo, "remote", "add", "origin", "https://example.com/team.git")
    included = tmp_path / "team.gitconfig"
    included.write_text(f"[core]\n\thooksPath = {value}\n")
    key = "includeIf.hasconfig:remote.*.url:https://example.com/**.path"
    run_git(repo, "config", key, str(included))


@pytest.mark.parametrize(
    "case", ["unset", "relative", "absolute", "home", "worktree", "included", "bare"]
)
def test_installing_never_breaks_git_the_hooks_folder_is_where_git_runs_hooks(
    git_repo: Path, tmp_path: Path, case: str
) -> None:
    """PRODUCT.md "Installing never breaks git" (hooks chain where git runs them): one
    reading of core.hooksPath (``gitio.places.configured_hooks``) serves install,
    uninstall, doctor, the guard and sync, and names the folder git itself runs hooks from:
    a relative path from the work tree's top (a linked worktree's own, set in its
    ``config.worktree``) or a bare repository's git directory, an absolute one, ``~``, and
    one set in a conditionally included file (where libgit2 alone read nothing)."""
    import pygit2

    from git_vcontext.gitio.places import hooks_folder

    where = git_repo
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "one")
    if case == "relative":
        run_git(git_repo, "config", "core.hooksPath", "team-hooks")
    elif case == "absolute":
        run_git(git_repo, "config", "core.hooksPath", str(tmp_path / "elsewhere"))
    elif case == "home":
        run_git(git_repo, "config", "core.hooksPath", "~/githooks")
    elif case == "worktree":
        where = tmp_path / "linked"
        run_git(git_repo, "worktree", "add", "-q", str(where))
        run_git(git_repo, "config", "extensions.worktreeConfig", "true")
        run_git(where, "config", "--worktree", "core.hooksPath", "own-hooks")
    elif case == "included":
        _included_hooks_path(git_repo, tmp_path, "team-hooks")
    elif case == "bare":
        where = tmp_path / "remote.git"
        run_git(tmp_path, "init", "-q", "--bare", str(where))
        run_git(where, "config", "core.hooksPath", "server-hooks")

    found = hooks_folder(pygit2.Repository(str(where)), receiving=case == "bare")

    assert found.resolve() == _hooks_by_git(where)


def test_a_hooks_path_from_an_included_file_is_where_install_and_sync_look(
    git_repo: Path, tmp_path: Path
) -> None:
    """core.hooksPath set in a file git includes for this remote's repositories: install
    puts the shim in that folder (as git runs it), and sync finds it there as the only
    pre-push check (``only_our_shim``: its pushes skip a second check). install asked git,
    sync asked libgit2, which does not evaluate the include: sync looked in .git/hooks."""
    import pygit2

    from git_vcontext.setup.hooks import only_our_shim

    _included_hooks_path(git_repo, tmp_path, str(tmp_path / "team-hooks"))
    done = run_cli("install", cwd=git_repo)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "team-hooks" / "pre-push").is_file()

    assert only_our_shim(pygit2.Repository(str(git_repo)))
