"""Quoted patterns in ``.gitattributes`` (gitattributes(5): "Patterns that begin with a
double quote are quoted in C style"): the file set of ``validate``, the hook, the guard
and ``check`` is git's own (PRODUCT.md "Validation": everything ``.gitattributes`` routes
to the driver), with ``git check-attr`` as the oracle, in the work tree and at a commit.
``install`` itself advises the quoted form for a name with spaces."""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import git_vcontext
from git_vcontext.gitio.fileset import commit_files, has_quoted_pattern, work_tree_files
from git_vcontext.rawpatch import quote as rawpatch_quote
from git_vcontext.validation.model import quoted_path
from helpers.guard import clone_with_base, guarded_remote, refs, remote_lines, sneak
from helpers.pre_push import commit, event, playbook, write
from helpers.run import run_cli, run_git

ATTRIBUTES = (
    '"notes/agent playbook.json" merge=vcontext\n'
    '"notes/agent \\303\\274 playbook.json" merge=vcontext\n'
    '"tabs/a\\tb.json" merge=vcontext\n'
    '"quotes/say \\"hi\\".json" merge=vcontext\n'
    '  "globbed/* x.json" merge=vcontext\n'
    "plain/*.json merge=vcontext\n"
    '"plain/not this.json" -merge\n'
    "unquoted/ü.json merge=vcontext\n"
    '"nested/**/deep doc.json" merge=vcontext\n'
)
SUB_ATTRIBUTES = '"local name.json" merge=vcontext\n"/rooted one.json" merge=vcontext\n'
PATHS = (
    "notes/agent playbook.json",
    "notes/agent ü playbook.json",
    "notes/agent",
    "tabs/a\tb.json",
    'quotes/say "hi".json',
    "globbed/one x.json",
    "globbed/deeper/one x.json",
    "plain/this.json",
    "plain/not this.json",
    "unquoted/ü.json",
    "nested/a/b/deep doc.json",
    "nested/deep doc.json",
    "sub/local name.json",
    "sub/inner/local name.json",
    "sub/rooted one.json",
    "sub/inner/rooted one.json",
    "other/agent playbook.json",
)


def _git_says(repo: Path, paths: tuple[str, ...]) -> dict[str, bool]:
    out = run_git_z(repo, "\0".join(paths) + "\0")
    fields = out.split("\0")
    return {fields[i]: fields[i + 2] == "vcontext" for i in range(0, len(fields) - 2, 3)}


def run_git_z(repo: Path, data: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "check-attr", "-z", "--stdin", "merge"],
        cwd=repo,
        input=data,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def attributed(git_repo: Path) -> Path:
    (git_repo / ".gitattributes").write_text(ATTRIBUTES)
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / ".gitattributes").write_text(SUB_ATTRIBUTES)
    for path in PATHS:
        (git_repo / path).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / path).write_text("{}\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "attributes")
    return git_repo


def test_validation_file_set_follows_gits_quoted_patterns_in_the_work_tree_and_at_a_commit(
    attributed: Path,
) -> None:
    oracle = _git_says(attributed, PATHS)
    assert oracle["notes/agent playbook.json"]
    assert oracle["notes/agent ü playbook.json"]
    assert not oracle["plain/not this.json"]  # the quoted line unsets what a glob set
    repo = pygit2.Repository(str(attributed))
    here = work_tree_files(repo)
    at_head = commit_files(repo)(str(repo.head.target))
    assert {p: here.routed(p) for p in PATHS} == oracle
    assert {p: at_head.routed(p) for p in PATHS} == oracle


def test_a_quoted_line_is_told_from_an_unquoted_one() -> None:
    assert has_quoted_pattern(b'# c\n  "a b" merge=vcontext\n')
    assert has_quoted_pattern(b'\t"a b" x\n')
    assert not has_quoted_pattern(b'a"b merge=vcontext\n# "x"\n')


@pytest.fixture(autouse=False)
def this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(git_vcontext.__file__).resolve().parents[1]))


def test_validation_an_invalid_document_a_quoted_pattern_routes_is_refused_everywhere(
    tmp_path: Path, this_checkout: None
) -> None:
    remote = guarded_remote(tmp_path, "--guard")
    repo = clone_with_base(remote, tmp_path / "clone")
    name = "notes/agent ü playbook.json"
    (repo / ".gitattributes").write_text(
        (repo / ".gitattributes").read_text() + '"notes/agent \\303\\274 playbook.json" '
        "merge=vcontext diff=vcontext\n"
    )
    write(repo, name, {"vContextInfo": {"version": "0.4"}, "playbook": {"items": 3}})
    commit(repo, "an invalid document under a quoted pattern")

    validated = run_cli("validate", cwd=repo)
    assert validated.returncode == 1, validated.stdout.decode()
    assert "does not send them to the driver" not in validated.stdout.decode()

    before = refs(remote)
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode != 0, done.stderr
    assert any(line.endswith("[schema]") for line in remote_lines(done.stderr)), done.stderr
    assert refs(remote) == before
    checked = run_cli("check", "origin/main..HEAD", cwd=repo)
    assert checked.returncode == 1
    assert "[schema]" in checked.stdout.decode()


def test_history_events_dropped_from_a_document_a_quoted_pattern_routes_are_refused(
    tmp_path: Path, this_checkout: None
) -> None:
    remote = guarded_remote(tmp_path, "--guard")
    repo = clone_with_base(remote, tmp_path / "clone")
    name = "notes/agent playbook.json"
    (repo / ".gitattributes").write_text(
        (repo / ".gitattributes").read_text() + f'"{name}" merge=vcontext diff=vcontext\n'
    )
    write(repo, name, playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "a playbook with a space in its name")
    assert sneak(repo, "origin", "HEAD:main").returncode == 0
    data = json.loads((repo / name).read_text())
    data["playbook"]["items"] = data["playbook"]["items"][:1]
    (repo / name).write_text(json.dumps(data, indent=2) + "\n")
    commit(repo, "drop e2")
    before = refs(remote)
    done = sneak(repo, "origin", "HEAD:main")
    assert done.returncode != 0, done.stderr
    assert any(line.endswith("[history-event-removed]") for line in remote_lines(done.stderr))
    assert refs(remote) == before


NAME_CHARS = 'ab z\t"\\ü#=.'


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.text(alphabet=NAME_CHARS, min_size=1, max_size=8).filter(
        lambda n: n.strip(" .") == n and n not in (".", "..")
    ),
    octal=st.booleans(),
)
def test_validation_file_set_agrees_with_git_check_attr_on_quoted_names(
    git_repo: Path, name: str, octal: bool
) -> None:
    """Whatever the name (spaces, tabs, quotes, backslashes, non-ASCII), quoted as git
    quotes it (C escapes; non-ASCII raw or in octal), the file set says what git says."""
    quoted = rawpatch_quote(name).decode() if octal else quoted_path(name)
    if not quoted.startswith('"'):
        quoted = f'"{quoted}"'
    (git_repo / ".gitattributes").write_text(f"{quoted} merge=vcontext\n")
    (git_repo / "d").mkdir(exist_ok=True)
    (git_repo / name).write_text("{}\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "x")
    oracle = _git_says(git_repo, (name,))[name]
    repo = pygit2.Repository(str(git_repo))
    assert work_tree_files(repo).routed(name) == oracle
    assert commit_files(repo)(str(repo.head.target)).routed(name) == oracle
    (git_repo / name).unlink()
