"""Values from outside checked as what they are before git sees them (gitio.operands).

PRODUCT.md, "Command-line contract": a remote must be a configured remote or a URL; a name
must pass ``git check-ref-format``; nothing may start with ``-``. The command-line and MCP
tests (tests/git/test_hostile_arguments.py, tests/serve/test_mcp_hostile_arguments.py)
prove nothing runs; these pin what each check accepts and refuses.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.errors import OperationalError, UsageError
from git_vcontext.gitio import open_repo, operands
from helpers.run import run_git


@pytest.mark.parametrize(
    "value",
    [
        "https://example.com/team/repo.git",
        "ssh://git@example.com:2222/repo.git",
        "git://example.com/repo",
        "file:///srv/git/repo.git",
        "git@example.com:team/repo.git",
        "example.com:repo",
        "[::1]:repo",
    ],
)
def test_a_url_of_gits_own_transports_is_a_remote(value: str) -> None:
    assert operands.remote(None, value) == value


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("--upload-pack=touch x", "starts with '-'"),
        ("-oProxyCommand=x:y", "starts with '-'"),
        ("ssh://-oProxyCommand=touch%20x/y", "user or host name starts with '-'"),
        ("ssh://-l@host/y", "user or host name starts with '-'"),
        ("ext::sh -c touch% x", "remote helper"),
        ("fd::3", "remote helper"),
        ("ext://x", "transport 'ext' is not allowed"),
        ("origin\n--upload-pack=x", "control character"),
        ("", "empty"),
    ],
)
def test_what_would_run_a_command_is_not_a_remote(value: str, why: str) -> None:
    with pytest.raises(UsageError, match=why):
        operands.remote(None, value)


def test_a_remote_name_must_be_configured_or_a_path(git_repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    run_git(tmp_path, "init", "-q", "--bare", str(bare))
    run_git(git_repo, "remote", "add", "upstream", str(bare))
    repo = open_repo(git_repo)
    assert operands.remote(repo, "upstream") == "upstream"
    assert operands.remote(repo, str(bare)) == str(bare)
    with pytest.raises(OperationalError, match="is not a configured remote"):
        operands.remote(repo, "nowhere")


@pytest.mark.parametrize("value", ["main", "agents/alice", "refs/heads/main", "release-1.0"])
def test_a_branch_name_git_accepts(value: str) -> None:
    assert operands.branch(value) == value.removeprefix("refs/heads/")


@pytest.mark.parametrize(
    "value", ["-x", "--output=x", "a..b", "a b", "x.lock", "@", "a~1", "a:b", "a\\b", ""]
)
def test_a_branch_name_git_refuses(value: str) -> None:
    with pytest.raises(UsageError):
        operands.branch(value)


@pytest.mark.parametrize("value", ["HEAD", "main~2", "A..B", "^main", "HEAD@{1 day ago}"])
def test_revisions_are_one_line_never_an_option(value: str) -> None:
    assert operands.revision(value) == value


@pytest.mark.parametrize("value", ["-n", "--output=x", "a\nb", ""])
def test_a_revision_that_git_would_read_as_an_option_is_refused(value: str) -> None:
    with pytest.raises(UsageError):
        operands.revision(value)


def test_a_path_may_start_with_a_dash_it_goes_after_double_dash() -> None:
    assert operands.path("-weird.json") == "-weird.json"
    with pytest.raises(UsageError, match="NUL"):
        operands.path("a\0b")
