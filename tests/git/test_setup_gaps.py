"""Setup gaps (issue 36 point 8; PRODUCT.md ``doctor``/``install``, "Which files"): a
document outside the attribute patterns merges by lines, so ``doctor`` and ``install`` print
the ``.gitattributes`` line that routes it to the driver (never "install fixes it" when it
does not); submodules holding documents are set up by ``install --recurse-submodules``,
``doctor`` in the superproject names them, and ``log``/``blame``/``diff`` of a path inside a
submodule say exactly what to run there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import git_vcontext
from helpers.conflict_repos import pretty, todo
from helpers.run import cli_path, run_cli, run_git


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands git starts must import the code under test, whatever the cwd."""
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def commit(repo: Path, message: str) -> str:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)
    return run_git(repo, "rev-parse", "HEAD").stdout.strip()


def write(repo: Path, rel: str, data: object) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(pretty(data))


MOVED = "notes/agent playbook.json"  # outside every pattern; a space, as real names have


def test_doctor_and_install_print_the_gitattributes_line_for_a_document_outside_the_patterns(
    git_repo: Path,
) -> None:
    repo = git_repo
    assert run_cli("install", cwd=repo).returncode == 0  # the hook too: doctor wants it
    write(repo, MOVED, todo())
    commit(repo, "a todo list where no pattern routes it")
    doctor = run_cli("doctor", cwd=repo)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1
    assert MOVED in out
    assert "install' fixes most of them" not in out  # install does not route it
    lines = [line.strip() for line in out.splitlines() if "merge=vcontext" in line]
    [suggested] = [line for line in lines if "agent" in line]
    attribute_line = suggested[suggested.index('"notes/') :] if '"' in suggested else suggested
    install = run_cli("install", cwd=repo)
    assert install.returncode == 0
    assert attribute_line in install.stdout.decode() + install.stderr.decode()
    # the line printed works as printed
    with (repo / ".gitattributes").open("a") as fh:
        fh.write(attribute_line + "\n")
    checked = run_git(repo, "check-attr", "merge", "--", MOVED).stdout
    assert checked.strip().endswith("merge: vcontext")
    assert run_cli("doctor", cwd=repo).returncode == 0


def test_the_printed_line_makes_git_merge_the_moved_document_structurally(
    git_repo: Path,
) -> None:
    repo = git_repo
    assert run_cli("install", "--no-hooks", cwd=repo).returncode == 0
    write(repo, MOVED, todo())
    commit(repo, "base")
    out = run_cli("doctor", cwd=repo).stdout.decode()
    [line] = [x.strip() for x in out.splitlines() if "merge=vcontext" in x and "agent" in x]
    with (repo / ".gitattributes").open("a") as fh:
        fh.write(line[line.index('"notes/') :] + "\n")
    commit(repo, "route it")
    run_git(repo, "switch", "-q", "-c", "feat")
    write(repo, MOVED, todo(t1="completed", t4={}))
    commit(repo, "feat")
    run_git(repo, "switch", "-q", "main")
    write(repo, MOVED, todo(t2="blocked", t5={}))
    commit(repo, "main")
    merged = run_git(repo, "merge", "--no-edit", "feat", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr  # by lines: a conflict
    items = json.loads((repo / MOVED).read_text())["todoList"]["items"]
    assert [i["id"] for i in items] == ["t1", "t2", "t3", "t5", "t4"]


@pytest.fixture
def superproject(tmp_path: Path) -> Path:
    """A superproject with a submodule ``sub`` that holds a todo list."""
    sub_origin = tmp_path / "sub-origin"
    sub_origin.mkdir()
    for where in (sub_origin,):
        run_git(where, "init", "-q", "-b", "main")
        run_git(where, "config", "user.name", "Sub")
        run_git(where, "config", "user.email", "sub@example.com")
    write(sub_origin, "todo.vcontext.json", todo())
    commit(sub_origin, "sub: a todo list")
    top = tmp_path / "top"
    top.mkdir()
    run_git(top, "init", "-q", "-b", "main")
    run_git(top, "config", "user.name", "Top")
    run_git(top, "config", "user.email", "top@example.com")
    (top / "README").write_text("top\n")
    commit(top, "top")
    run_git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
            str(sub_origin), "sub")  # fmt: skip
    commit(top, "add sub")
    for key, value in (("user.name", "Sub"), ("user.email", "sub@example.com")):
        run_git(top / "sub", "config", key, value)
    write(top / "sub", "todo.vcontext.json", todo(t1="completed"))
    commit(top / "sub", "sub: t1 done")
    commit(top, "bump sub")  # HEAD~1 and HEAD record different commits of sub
    return top


def test_install_recurse_submodules_sets_up_each_submodule(superproject: Path) -> None:
    top = superproject
    sub = top / "sub"
    doctor = run_cli("doctor", cwd=top)
    out = doctor.stdout.decode()
    assert doctor.returncode == 1
    assert "sub" in out
    assert "--recurse-submodules" in out
    proc = run_cli("install", "--recurse-submodules", cwd=top)
    assert proc.returncode == 0, proc.stderr
    assert "sub" in proc.stdout.decode()
    attr = run_git(sub, "check-attr", "merge", "--", "todo.vcontext.json").stdout
    assert attr.strip().endswith("merge: vcontext")
    assert run_git(sub, "config", "--get", "merge.vcontext.driver").returncode == 0
    assert run_cli("doctor", cwd=top).returncode == 0, run_cli("doctor", cwd=top).stdout
    # a merge inside the submodule is structural now
    run_git(sub, "add", "-A")
    run_git(sub, "commit", "-q", "-m", "install")
    run_git(sub, "switch", "-q", "-c", "feat")
    write(sub, "todo.vcontext.json", todo(t1="completed", t4={}))
    commit(sub, "feat")
    run_git(sub, "switch", "-q", "main")
    write(sub, "todo.vcontext.json", todo(t2="blocked", t5={}))
    commit(sub, "main")
    merged = run_git(sub, "merge", "--no-edit", "feat", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("log", "--", "sub/todo.vcontext.json"),
        ("log", "--", "sub/todo.vcontext.json#t1"),
        ("blame", "sub/todo.vcontext.json"),
        ("diff", "HEAD~1", "HEAD", "--", "sub/todo.vcontext.json"),
    ],
    ids=["log", "log-item", "blame", "diff"],
)
def test_history_of_a_path_in_a_submodule_says_what_to_run_there(
    superproject: Path, args: tuple[str, ...]
) -> None:
    proc = run_cli(*args, cwd=superproject)
    err = proc.stderr.decode()
    assert proc.returncode == 3, proc.stdout.decode() + err
    assert err.count("\n") == 1
    assert "not committed yet" not in err
    assert "submodule sub" in err

    def there(arg: str) -> str:
        """An argument as it is in the submodule: its path, the commit a revision records."""
        if "todo.vcontext.json" in arg:
            return "todo.vcontext.json" + arg.split("todo.vcontext.json", 1)[1]
        if arg.startswith("HEAD"):
            return run_git(superproject, "rev-parse", f"{arg}:sub").stdout.strip()[:12]
        return arg

    inner = " ".join(there(a) for a in args)
    assert f"git -C sub vcontext {inner}" in err
    # and what it says works
    bin_dir = str(Path(cli_path()[0]).parent)
    ran = subprocess.run(
        ["git", "-C", "sub", "vcontext", *inner.split()],
        cwd=superproject,
        capture_output=True,
        env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"]},
    )
    assert ran.returncode in (0, 1), ran.stderr


def test_diff_from_a_revision_without_the_submodule_says_so_and_what_shows_its_history(
    superproject: Path,
) -> None:
    proc = run_cli("diff", "HEAD~2", "HEAD", "--", "sub/todo.vcontext.json", cwd=superproject)
    err = proc.stderr.decode()
    assert proc.returncode == 3
    assert err.count("\n") == 1
    assert "submodule sub" in err
    assert "HEAD~2 does not have" in err
    assert "git -C sub vcontext log -- todo.vcontext.json" in err


def test_history_of_a_submodule_path_from_a_subdirectory_names_the_submodule_from_there(
    superproject: Path,
) -> None:
    (superproject / "docs").mkdir()
    proc = run_cli("blame", "../sub/todo.vcontext.json", "--rev", "HEAD~1",
                   cwd=superproject / "docs")  # fmt: skip
    err = proc.stderr.decode()
    assert proc.returncode == 3
    recorded = run_git(superproject, "rev-parse", "HEAD~1:sub").stdout.strip()[:12]
    assert f"git -C ../sub vcontext blame todo.vcontext.json --rev {recorded}" in err


def test_uninstall_recurse_submodules_removes_what_install_added_there(
    superproject: Path,
) -> None:
    top, sub = superproject, superproject / "sub"
    assert run_cli("install", "--recurse-submodules", cwd=top).returncode == 0
    proc = run_cli("uninstall", "--recurse-submodules", cwd=top)
    assert proc.returncode == 0, proc.stderr
    assert run_git(sub, "config", "--get", "merge.vcontext.driver", check=False).returncode == 1
    assert not (sub / ".gitattributes").exists()
    assert run_git(sub, "status", "--porcelain").stdout == ""
    assert run_git(top, "config", "--get", "merge.vcontext.driver", check=False).returncode == 1


def test_install_recurse_submodules_leaves_a_submodule_without_documents_alone(
    superproject: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain-origin"
    plain.mkdir()
    run_git(plain, "init", "-q", "-b", "main")
    (plain / "README").write_text("no documents\n")
    run_git(plain, "add", "-A")
    run_git(plain, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qm", "p")
    run_git(superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
            str(plain), "plain")  # fmt: skip
    proc = run_cli("install", "--recurse-submodules", cwd=superproject)
    assert proc.returncode == 0, proc.stderr
    assert "submodule plain: no vContext files, left alone" in proc.stdout.decode()
    assert run_git(superproject / "plain", "status", "--porcelain").stdout == ""
    assert run_cli("doctor", cwd=superproject).returncode == 0


@pytest.mark.parametrize(
    "name",
    [
        "playbook.json",  # at the top: anchored, not every playbook.json below
        "notes/a*b.json",
        "notes/[draft] plan.json",
        'notes/say "hi".json',
        "notes/back\\slash.json",
        "#hash.json",
        "!bang.json",
        "notes/tab\there.json",
    ],
)
def test_the_printed_attribute_line_routes_exactly_that_file_as_git_reads_it(
    git_repo: Path, name: str
) -> None:
    from git_vcontext.setup.coverage import attribute_line

    (git_repo / ".gitattributes").write_text(attribute_line(name) + "\n")
    others = ["deep/playbook.json", "notes/aXb.json", "notes/d plan.json"]

    def merge_attr(path: str) -> str:
        out = run_git(git_repo, "check-attr", "-z", "merge", "--", path).stdout.split("\0")
        return out[2]

    assert merge_attr(name) == "vcontext"
    assert [merge_attr(o) for o in others] == ["unspecified"] * 3


def test_doctor_names_a_submodule_that_is_not_checked_out(
    superproject: Path, tmp_path: Path
) -> None:
    """A clone without --recurse-submodules: doctor cannot look inside, and says so with the
    commands that would (a note, not a problem: there may be nothing to set up)."""
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(superproject), str(clone))
    assert run_cli("install", cwd=clone).returncode == 0
    proc = run_cli("doctor", cwd=clone)
    out = proc.stdout.decode()
    assert "note: submodule sub is not checked out" in out, out
    assert "git submodule update --init sub" in out
    assert "problem" not in out
    run_git(clone, "checkout", "-q", "HEAD~1")  # the commit of sub that its origin has
    run_git(clone, "-c", "protocol.file.allow=always", "submodule", "update", "-q", "--init")
    out = run_cli("doctor", cwd=clone).stdout.decode()
    assert "not checked out" not in out


@pytest.mark.parametrize(
    ("word", "shown"),
    [("todo.json#t1", "todo.json#t1"), ("#t1", "'#t1'"), ("~alice", "'~alice'"),
     ("a~1", "a~1"), ("it's", "'it'\"'\"'s'"), ("two words", "'two words'")],
)  # fmt: skip
def test_submodule_advice_quotes_words_a_shell_would_change(word: str, shown: str) -> None:
    """What the advice prints is what a shell reads back: a leading ``~`` (a home folder)
    and a leading ``#`` (a comment) are quoted, the same characters inside a word are not."""
    from git_vcontext.commands.in_submodule import _command

    assert _command("sub", [word]) == f"git -C sub vcontext {shown}"
    read_back = subprocess.run(
        ["sh", "-c", 'printf "%s\\n" ' + shown], capture_output=True, text=True, check=True
    ).stdout
    assert read_back == word + "\n"
