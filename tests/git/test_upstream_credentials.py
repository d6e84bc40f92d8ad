"""A base whose upstream is a URL holding credentials (``branch.main.remote`` set to
``https://user:TOKEN@host/x.git``, as some set a token up): what status, status --fetch
and sync --push print names the URL with the token masked, never the token (command-line
contract: nothing from outside printed unchecked; "Sync at scale": a failing remote
reported in one line), and the commands given to paste read the URL from the
configuration where it is (``"$(git config branch.main.remote)"``) instead of printing
it. Real git; the URL points at a closed local port (refused: tried until
``vcontext.statusTimeout``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pygit2
import pytest

from git_vcontext.errors import shown_url
from git_vcontext.gitio.places import fetched_namespace
from helpers.run import run_cli, run_git
from helpers.sync_repos import EPOCH, alice_ticks_t1, commit_all, edit, seed, status

TODO = "todo.vcontext.json"
TOKEN = "s3cr3tTOKEN"
URL = f"https://user:{TOKEN}@127.0.0.1:9/x.git"


def test_a_urls_credentials_are_masked_as_git_masks_them() -> None:
    assert shown_url(URL) == "https://user:***@127.0.0.1:9/x.git"
    assert shown_url(f"https://{TOKEN}@github.com/o/x.git") == "https://***@github.com/o/x.git"
    # an ssh user is no secret; a path or an scp-like address has no credentials
    for kept in ("ssh://git@host/x.git", "git@host:x.git", "/srv/x@y.git", "https://h/a@b"):
        assert shown_url(kept) == kept


def _tracking_url(git_repo: Path, merge: str) -> None:
    seed(git_repo)
    run_git(git_repo, "config", "branch.main.remote", URL)
    run_git(git_repo, "config", "branch.main.merge", merge)
    run_git(git_repo, "config", "vcontext.statusTimeout", "1")
    alice_ticks_t1(git_repo)


def test_status_and_sync_never_print_the_token_of_the_bases_url(git_repo: Path) -> None:
    _tracking_url(git_repo, "refs/heads/trunk")

    text = run_cli("status", cwd=git_repo, env=EPOCH)
    shown = run_cli("status", "--format", "json", cwd=git_repo, env=EPOCH)
    fetched = run_cli("status", "--fetch", cwd=git_repo, env=EPOCH)
    pushed = run_cli("sync", "alice", "--push", URL, cwd=git_repo, env=EPOCH)

    for proc in (text, shown, fetched, pushed):
        assert TOKEN.encode() not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert b"trunk of https://user:***@127.0.0.1:9/x.git" in text.stdout
    (base,) = json.loads(shown.stdout)["bases"]
    assert base["remote"] == "https://user:***@127.0.0.1:9/x.git"
    assert fetched.returncode == 3
    assert b"git fetch https://user:***@127.0.0.1:9/x.git" in fetched.stderr
    assert pushed.returncode == 3
    assert b'git fetch "$(git config branch.main.remote)" trunk:trunk' in pushed.stderr
    assert b'git config branch.trunk.remote "$(git config branch.main.remote)"' in pushed.stderr


def test_a_plain_sync_behind_a_url_gives_a_push_that_names_no_token(git_repo: Path) -> None:
    """The warning of a plain sync into a base behind its URL upstream (as last fetched)
    gives the sync --push to run, its remote read from the configuration."""
    _tracking_url(git_repo, "refs/heads/main")
    run_git(git_repo, "switch", "-q", "-c", "later")
    edit(git_repo, TODO, status(("t3", "blocked")))
    later = commit_all(git_repo, "someone blocks t3 on the remote")
    run_git(git_repo, "switch", "-q", "main")
    namespace = fetched_namespace(pygit2.Repository(str(git_repo)), URL)
    run_git(git_repo, "update-ref", f"{namespace}heads/main", later)  # as fetched before

    synced = run_cli("sync", "alice", cwd=git_repo, env=EPOCH)

    assert synced.returncode == 0, synced.stderr
    assert b"main is behind main of https://user:***@127.0.0.1:9/x.git" in synced.stderr
    assert b'--push "$(git config branch.main.remote)" syncs with' in synced.stderr
    assert TOKEN.encode() not in synced.stdout + synced.stderr


def test_check_names_a_url_upstream_without_its_token_and_not_as_gone(git_repo: Path) -> None:
    """``check`` with no range on a base tracking a URL (no remote-tracking branch here):
    one line, exit 3, ``trunk of URL`` with the token masked (it printed
    ``https://user:TOKEN@…/trunk`` and said it was deleted on the remote)."""
    _tracking_url(git_repo, "refs/heads/trunk")

    checked = run_cli("check", cwd=git_repo, env=EPOCH)

    assert checked.returncode == 3, checked.stdout + checked.stderr
    assert len(checked.stderr.splitlines()) == 1, checked.stderr
    assert TOKEN.encode() not in checked.stdout + checked.stderr
    assert b"main's upstream is trunk of https://user:***@127.0.0.1:9/x.git" in checked.stderr
    assert b"is gone" not in checked.stderr


def test_sync_push_to_a_url_with_credentials_writes_them_nowhere(
    git_repo: Path, tmp_path: Path
) -> None:
    """``sync --push`` to a URL holding credentials (``file://user:TOKEN@localhost/…``,
    which git reads as the path): the round lands, and neither its output nor the merge
    commits it pushes (their messages, the reflog) hold the token; they used to name the
    base ``file://user:TOKEN@…/main`` in every merge message, published on the remote."""
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    url = f"file://user:{TOKEN}@localhost{bare}"
    seed(git_repo)
    run_git(git_repo, "push", "-q", url, "main")
    run_git(git_repo, "config", "branch.main.remote", url)
    run_git(git_repo, "config", "branch.main.merge", "refs/heads/main")
    alice_ticks_t1(git_repo)
    edit(git_repo, TODO, status(("t3", "blocked")))
    commit_all(git_repo, "main moves here")
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(bare), str(other))
    (other / "notes.txt").write_text("someone else\n")
    run_git(other, "add", "-A")
    run_git(other, "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-qm", "other")
    run_git(other, "push", "-q", "origin", "main")  # the base moved there: a merge

    pushed = run_cli("sync", "alice", "--push", url, cwd=git_repo, env=EPOCH)

    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert TOKEN.encode() not in pushed.stdout + pushed.stderr
    assert f"pushed to file://user:***@localhost{bare}".encode() in pushed.stdout
    messages = run_git(bare, "log", "--all", "--format=%B").stdout
    assert "vcontext sync: merge" in messages
    assert TOKEN not in messages
    assert TOKEN not in run_git(git_repo, "reflog", "--all").stdout


def test_a_conflict_after_sync_push_to_a_url_with_credentials_names_the_way_out_masked(
    git_repo: Path, tmp_path: Path
) -> None:
    """The ``next:`` line of a pair that conflicts, after ``sync --push URL`` (a URL holding
    a token, given on the command line only): the URL masked, as every other line masks
    it (``sync.advice.sync_command``); it printed the token whole."""
    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    url = f"file://user:{TOKEN}@localhost{bare}"
    seed(git_repo)
    run_git(git_repo, "push", "-q", url, "main")
    alice_ticks_t1(git_repo)
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(bare), str(other))
    edit(other, TODO, status(("t1", "blocked")))
    run_git(other, "-c", "user.name=O", "-c", "user.email=o@x", "commit", "-qam", "t1 blocked")
    run_git(other, "push", "-q", "origin", "main")

    pushed = run_cli("sync", "alice", "--push", url, cwd=git_repo, env=EPOCH)

    assert pushed.returncode == 1, pushed.stdout + pushed.stderr
    assert b"CONFLICT" in pushed.stdout
    assert TOKEN.encode() not in pushed.stdout + pushed.stderr
    said = f"next: git vcontext sync alice --push 'file://user:***@localhost{bare}' --checkout"
    assert said.encode() in pushed.stdout


def test_a_remote_refused_by_its_checks_is_named_without_its_token() -> None:
    """``operands.remote``'s own refusals (a transport not allowed, a host starting with
    '-', a remote helper's address, no remote at all) name the value with its
    credentials masked: they used to print it whole (command-line contract: bad input, one
    clear line; nothing from outside printed unchecked)."""
    from git_vcontext.errors import VContextError
    from git_vcontext.gitio.operands import remote

    for value in (
        f"gopher://user:{TOKEN}@127.0.0.1:9/x.git",
        f"https://user:{TOKEN}@-oProxyCommand=x/x.git",
        f"ext::https://user:{TOKEN}@127.0.0.1:9/x.git",
        f"nowhere/https://user:{TOKEN}@127.0.0.1:9/x.git",
    ):
        with pytest.raises(VContextError) as refused:
            remote(None, value)
        assert TOKEN not in refused.value.one_line(), refused.value.one_line()
        assert "user:***@" in refused.value.one_line(), refused.value.one_line()


def test_gits_own_lines_relayed_hold_no_token() -> None:
    """git masks the credentials of some of its lines, not all: whatever sync relays from
    git's stderr (its reason, the lines before it) has them masked, and so has any error's
    message (the MCP server's tool errors and the JSON outputs carry the same text)."""
    from git_vcontext.errors import OperationalError
    from git_vcontext.gitio import complaint
    from git_vcontext.gitio.transport import explained

    stderr = (
        f"remote: see https://{TOKEN}@127.0.0.1:9/help\n"
        f"fatal: unable to access 'https://user:{TOKEN}@127.0.0.1:9/x.git/': refused\n"
    )
    for said in (explained(stderr, 128), complaint(stderr, 128)):
        assert TOKEN not in said, said
        assert "https://user:***@127.0.0.1:9/x.git/" in said
    assert TOKEN not in explained(stderr, 128).split("(", 1)[1]  # the line before, too
    # a password holding '@' is masked whole
    error = OperationalError(f"git push https://u:p@{TOKEN}@127.0.0.1:9/x.git: refused")
    assert TOKEN not in error.one_line()
    assert "https://u:***@127.0.0.1:9/x.git" in error.one_line()


def test_the_pre_push_hook_names_a_url_remote_without_its_token(
    git_repo: Path, tmp_path: Path
) -> None:
    """A push straight to a URL holding credentials: git gives the hook the URL as the
    remote's name; the hook's refusal (its ``REF -> REMOTE REF`` lines, the ``git pull
    --rebase`` it advises) names it masked, or as REMOTE where a command is to be pasted
    (a masked URL would not work there). It printed the token whole."""
    from helpers.pre_push import PLAYBOOK, commit, event, installed_and_pushed, playbook, push
    from helpers.pre_push import write as write_doc

    bare = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    repo = installed_and_pushed(git_repo, bare)
    url = f"file://user:{TOKEN}@localhost{bare}"
    write_doc(repo, PLAYBOOK, playbook(event("e1", "first"), event("e2", "second")))
    commit(repo, "a second lesson")
    assert push(repo, url, "main").returncode == 0
    run_git(repo, "reset", "-q", "--hard", "HEAD~1")
    (repo / "notes.txt").write_text("unrelated\n")
    commit(repo, "an unrelated commit")

    refused = push(repo, "--force", url, "main")

    assert refused.returncode != 0
    assert "forced update" in refused.stderr, refused.stderr
    assert TOKEN not in refused.stderr, refused.stderr
    assert f"refs/heads/main -> file://user:***@localhost{bare}" in refused.stderr
    assert "git pull --rebase REMOTE main" in refused.stderr


def test_the_integration_lease_wait_names_a_url_remote_without_its_token() -> None:
    """``sync --push URL --lease`` waiting for another agent's integration lease says so
    on stderr, naming the remote: masked (it printed the URL whole)."""
    from types import SimpleNamespace

    from git_vcontext.remote.lease import LeaseKeeper

    said: list[str] = []
    keeper = SimpleNamespace(
        said_waiting=False,
        pusher=SimpleNamespace(remote=URL),
        view=SimpleNamespace(base="main"),
    )
    LeaseKeeper._say_waiting(keeper, said.append)  # type: ignore[arg-type]
    keeper.said_waiting = False
    LeaseKeeper._say_waiting(keeper, said.append, "held by bob")  # type: ignore[arg-type]

    assert said == [
        "https://user:***@127.0.0.1:9/x.git main: another agent took the integration lease "
        "first: waiting",
        "https://user:***@127.0.0.1:9/x.git main: the integration lease is held by bob: waiting",
    ]
