"""No value given on the command line is ever read by git as an option, nor run.

PRODUCT.md, "Command-line contract": every value from outside that reaches a git command
line (remote, branch and agent names, revisions, paths) is validated as what it is (a
remote must be a configured remote or a URL; a name must pass ``git check-ref-format``;
nothing may start with ``-``) and passed after ``--``. Issue 31, point 1: ``sync --push
'--upload-pack=…'`` ran a command. Each command that takes such a value gets each hostile
value of ``helpers.hostile``: a one-line refusal or a normal answer, no ``MARKER`` file.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from helpers.hostile import KINDS, hostile_values, markers
from helpers.mcp_support import documents_repo
from helpers.run import REPO_ROOT, run_cli, run_git

V = "{V}"
FORMS = [
    ["sync", "alice", "--push", V],
    ["sync", "alice", "--into", V],
    ["sync", "--", V],
    ["sync", V, "--push", "origin"],
    ["fork", "--", V],
    ["fork", "bob", "--from", V],
    ["log", V, "--", "todo.vcontext.json"],
    ["log", "--", V],
    ["blame", "todo.vcontext.json", "--rev", V],
    ["blame", "--", V],
    ["diff", V],
    ["diff", "main", "--", V],
    ["view", "playbook.vcontext.json", "--at", V],
    ["status", V],
    ["conflicts", "--", V],
    ["resolve", "--", V],
    ["validate", "--", V],
    ["vermas", "project", "--", V],
    ["check", V],
    ["check", "--", V],
    ["revert", "--", V],
    ["revert", "--no-commit", "--", V],
]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with documents, an agent and a real bare remote ``origin``."""
    top = tmp_path_factory.mktemp("hostile")
    repo = top / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    run_git(repo, "config", "user.name", "T")
    run_git(repo, "config", "user.email", "t@example.com")
    documents_repo(repo)
    run_git(top, "init", "-q", "--bare", "remote.git")
    run_git(repo, "remote", "add", "origin", str(top / "remote.git"))
    run_git(repo, "push", "-q", "origin", "main")
    assert run_cli("fork", "alice", cwd=repo).returncode == 0
    return repo


@pytest.mark.parametrize("form", FORMS, ids=[" ".join(f) for f in FORMS])
def test_no_command_line_value_reaches_git_as_an_option(shared: Path, form: list[str]) -> None:
    folder = shared.parent
    for value in hostile_values(folder)[:KINDS]:  # one of each kind (time)
        args = [value if a == V else a for a in form]
        done = run_cli(*args, cwd=shared)
        err = done.stderr.decode(errors="replace")
        assert "Traceback" not in err, (args, err)
        assert "internal error" not in err, (args, err)
        usage = done.returncode == 2 and err.startswith("Usage:")  # click's usage block
        assert usage or err.count("\n") <= 1 or done.returncode in (0, 1), (args, err)
        assert markers(folder) == [], args
    assert run_git(shared, "status", "--porcelain").stdout == ""


def test_sync_push_upload_pack_is_refused_before_git_runs(shared: Path) -> None:
    """The reported attack: refused in one line (exit 2), nothing run, no branch moved."""
    pwn = shared.parent / "MARKER-PWN"
    before = run_git(shared, "for-each-ref").stdout
    done = run_cli("sync", "alice", "--push", f"--upload-pack=touch {pwn};", cwd=shared)
    assert done.returncode == 2
    assert b"starts with '-'" in done.stderr
    assert done.stderr.count(b"\n") == 1
    assert not pwn.exists()
    assert run_git(shared, "for-each-ref").stdout == before


def test_sync_push_to_a_remote_helper_is_refused(shared: Path) -> None:
    pwn = shared.parent / "MARKER-EXT"
    done = run_cli("sync", "alice", "--push", f"ext::sh -c touch% {pwn}", cwd=shared)
    assert done.returncode == 2, done.stderr
    assert b"remote helper" in done.stderr
    assert not pwn.exists()


@pytest.mark.parametrize(
    "remote", ["origin", "{remote}", "file://{remote}"], ids=["name", "path", "url"]
)
def test_sync_push_still_takes_a_remote_name_path_or_url(shared: Path, remote: str) -> None:
    where = remote.replace("{remote}", str(shared.parent / "remote.git"))
    done = run_cli("sync", "alice", "--push", where, cwd=shared)
    assert done.returncode == 0, done.stderr


WRAPPERS = {"_run": 4, "_url": 1}
"""Functions that run ``git`` with an argument list they are given (``gitio.remote._run``:
``git VERB ARGS`` through a sync's ``Link``; ``gitio.transport._url``): each of their calls
is judged as a ``git()`` call, by the list at this position."""
PASS_THROUGH = {
    ("gitio/remote.py", "_run"),
    ("gitio/transport.py", "run"),  # Link.run: called by remote._run only (checked below)
    ("gitio/transport.py", "_url"),
}
"""Where ``git()`` gets the list a caller built (judged at the callers, ``WRAPPERS``)."""


def _git_calls() -> list[tuple[str, ast.List]]:
    calls = []
    for path in sorted((REPO_ROOT / "src").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        module = path.relative_to(REPO_ROOT / "src" / "git_vcontext").as_posix()
        for function, node in _calls(tree):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            where = f"{path.relative_to(REPO_ROOT)}:{node.lineno}"
            passing = (module, function) in PASS_THROUGH
            if isinstance(func, ast.Attribute) and ast.unparse(func) == "link.run":
                assert passing, f"{where}: Link.run outside gitio.remote._run"
            if name in WRAPPERS and not passing and len(node.args) > WRAPPERS[name]:
                listed = node.args[WRAPPERS[name]]
                if isinstance(listed, ast.Name):  # a list built just before: push's command
                    listed = _assigned(tree, listed.id, node.lineno)
                assert isinstance(listed, ast.List), f"{where}: {name}() of a list literal"
                calls.append((where, listed))
                continue
            if name != "git" or not node.args or module == "commands/demo.py" or passing:
                continue  # demo: its own git(*args)
            assert isinstance(node.args[0], ast.List), f"{where}: git() of a list literal"
            calls.append((where, node.args[0]))
    return calls


def _calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Every call, with the name of the function it is in ("" at module level)."""
    found: list[tuple[str, ast.Call]] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.Call):
            found.append((function, node))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "")
    return found


def _assigned(tree: ast.AST, name: str, before: int) -> ast.expr:
    """The value last assigned to ``name`` before line ``before``."""
    values = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        and n.lineno < before
        and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
    ]
    return max(values, key=lambda v: v.lineno) if values else ast.Name(name)


def _literal_option(element: ast.expr) -> bool:
    """A string literal, an option with its value glued (``f"--message={text}"``), a
    constant (ALL_CAPS) or a list of flags (or a command) built from literals."""
    if isinstance(element, ast.Starred):
        element = element.value
    if isinstance(element, ast.Constant):
        return isinstance(element.value, str)
    if isinstance(element, ast.JoinedStr):
        first = element.values[0] if element.values else None
        return isinstance(first, ast.Constant) and str(first.value).startswith("--")
    name = element.id if isinstance(element, ast.Name) else getattr(element, "attr", "")
    return name.isupper() or "flag" in name or name == "command"


def test_every_git_command_takes_variable_values_only_after_double_dash() -> None:
    """The structural half of the rule: in every ``git([...])`` of src/, whatever is not a
    literal option comes after ``--`` (or ``--end-of-options``, before the revisions of a
    command whose ``--`` starts paths); values from outside are checked by gitio.operands
    before they get there."""
    calls = _git_calls()
    assert len(calls) > 20
    offenders = []
    for where, args in calls:
        for element in args.elts:
            if isinstance(element, ast.Constant) and element.value in ("--", "--end-of-options"):
                break
            if not _literal_option(element):
                offenders.append(f"{where}: {ast.unparse(element)}")
    assert offenders == []
