"""``sync --push`` looks at a remote over HTTP in process (libgit2) only where git would do
nothing different, against a real ``git http-backend`` on loopback (``helpers.git_servers``).

PRODUCT.md, "Sync at scale" (transports): over any transport git speaks, sync does what git
would do — git's own HTTP settings are never bypassed, a remote that needs credentials gets
them through git and its credential helper, a transient failure is retried inside the
sync's deadline, and nothing is lost. The in-process look (``gitio.httpremote``) is taken
only for an anonymous read with none of git's HTTP settings in play; anything else, and
any failure of libgit2, is the same look through git.
"""

from __future__ import annotations

import base64
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio.httpremote import MANY_REFS, HttpRemote
from git_vcontext.gitio.localremote import LocalRemote
from git_vcontext.gitio.places import common_dir
from git_vcontext.remote import refs as leases
from git_vcontext.remote.view import RemoteView
from helpers import git_servers as servers
from helpers import soak


def _team(root: Path, url: str, agents: int = 2) -> tuple[Path, list[Path]]:
    return soak.setup(root, agents, remote=root / "srv" / "remote.git", url=url)


def _refs(clone: Path) -> str:
    """What a look leaves in a clone: sync's fetched refs and the remote-tracking ones."""
    return soak.git(
        clone, "for-each-ref", "--format=%(refname) %(objectname)",
        "refs/vcontext/remotes/", "refs/remotes/",
    ).stdout  # fmt: skip


def _look(clone: Path, branches: list[str]) -> RemoteView:
    """One look; git's asks for every branch too (as once the remote is known to have them:
    it drops those the remote lacks, ``gitio.remote.fetch``)."""
    view = RemoteView(pygit2.Repository(str(clone)), str(clone), "origin", "main", branches)
    view.present = set(branches)
    view.fetch()
    return view


def _commit_on(remote: Path, parent: str, message: str) -> str:
    tree = soak.git(remote, "rev-parse", f"{parent}^{{tree}}").stdout.strip()
    return soak.git(remote, "commit-tree", tree, "-p", parent, "-m", message).stdout.strip()


def test_sync_look_over_http_in_process_sets_the_refs_gits_look_sets(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Two clones of one remote, one looking in process, the other through git
    (``vcontext.inProcessHttp false``): the same refs after each look — new objects brought,
    refs the remote no longer has pruned, another base's lease left out, an agent branch
    the remote lacks simply missing — and the in-process clone's ``FETCH_HEAD`` untouched."""
    remote = tmp_path / "srv" / "remote.git"
    remote_url = http.url(remote)
    _, (ours, gits) = _team(tmp_path, remote_url)
    soak.git(gits, "config", "vcontext.inProcessHttp", "false")
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    for ref in (
        leases.request_ref("main", "agent-1"),
        leases.lease_ref("main"),
        leases.lease_ref("mainline"),  # another base's: never fetched for main
        "refs/heads/agent-0",
    ):
        soak.git(remote, "update-ref", ref, _commit_on(remote, main, ref))
    branches = ["agent-0", "agent-1", "agent-9"]
    (ours / ".git" / "FETCH_HEAD").write_text("the user's own\n")

    seen = _look(ours, branches)
    assert seen.http is not None
    assert not seen.http.failed
    assert _look(gits, branches).http is None
    assert _refs(ours) == _refs(gits)
    assert "lease/mainline" not in _refs(ours)
    assert "agent-0" in _refs(ours)
    assert "agent-9" not in _refs(ours)

    asked = http.requests
    _look(ours, branches)  # nothing new: one request (git's: two, and two processes)
    assert http.requests - asked == 1

    soak.git(remote, "update-ref", "-d", leases.request_ref("main", "agent-1"))
    soak.git(remote, "update-ref", "refs/heads/main", _commit_on(remote, main, "next"))
    soak.git(remote, "update-ref", "-d", "refs/heads/agent-0")
    _look(ours, branches)
    _look(gits, branches)
    assert _refs(ours) == _refs(gits)
    assert "agent-1" not in _refs(ours)
    assert "heads/agent-0" not in _refs(ours)
    fsck = soak.git(ours, "fsck", "--no-progress", check=False)
    assert fsck.returncode == 0, fsck.stderr
    assert (ours / ".git" / "FETCH_HEAD").read_text() == "the user's own\n"


def test_sync_over_http_a_remote_that_asks_for_credentials_gets_them_through_git(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """A remote that answers 401: the in-process look gives up (libgit2 has no credentials)
    and git looks instead, with the user's credential helper; the sync lands its round."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    http.password = "right"
    helper = "!f() { echo username=agent; echo password=right; }; f"
    soak.git(clone, "config", "credential.helper", helper)
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is not None

    view = _look(clone, ["agent-0"])
    assert view.http is not None
    assert view.http.failed
    assert view.read().base is not None
    before = soak.git(remote, "rev-parse", "main").stdout
    soak.work(clone, "agent-0", 0, soak.AgentLog("agent-0"))
    result = soak.sync(clone, "agent-0", {"GIT_TERMINAL_PROMPT": "0"})
    assert result["exit"] == 0, result["output"]
    assert soak.git(remote, "rev-parse", "main").stdout != before  # (its round landed)


def test_sync_over_http_with_an_extra_header_looks_through_git(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """``http.extraHeader`` (as actions/checkout sets it) says how git talks to the server:
    the look is git's, which sends it (the server lets nothing in without it here)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    http.password = "token"
    basic = base64.b64encode(b"agent:token").decode()
    soak.git(clone, "config", "http.extraHeader", f"Authorization: Basic {basic}")
    view = _look(clone, ["agent-0"])
    assert view.http is None
    assert view.read().base is not None


class _Moved(BaseHTTPRequestHandler):
    """Answers every request with 301 to the same path on ``target`` (a server that moved)."""

    target = ""

    def do_GET(self) -> None:
        self.send_response(301)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.mark.parametrize("host", ["localhost", servers.LOOPBACK])
def test_sync_over_http_a_redirect_to_another_host_sends_the_look_through_git(
    tmp_path: Path, http: servers.HttpFront, host: str
) -> None:
    """A remote whose address answers with a redirect. To another host libgit2 follows
    none: the look is git's, which follows it as its ``http.followRedirects`` says (by
    default: the first request's). On the same host (another port) libgit2 follows it, as
    git does by default. Either way the look finds the remote's base."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    handler = type("Moved", (_Moved,), {"target": f"http://{host}:{http.port}"})
    moved = ThreadingHTTPServer((servers.LOOPBACK, 0), handler)
    threading.Thread(target=moved.serve_forever, args=(0.1,), daemon=True).start()
    try:
        port = moved.server_address[1]
        url = f"http://{servers.LOOPBACK}:{port}/remote.git"
        soak.git(clone, "remote", "set-url", "origin", url)
        view = _look(clone, ["agent-0"])
    finally:
        moved.shutdown()
        moved.server_close()
    assert view.http is not None
    assert view.http.failed == (host != servers.LOOPBACK)
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    assert view.read().base == pygit2.Oid(hex=main)


BLOCKING_SETTINGS = [
    ("http.extraHeader", "X-Token: 1"),
    ("http.sslCAInfo", "/etc/ssl/certs/ca-certificates.crt"),
    ("http.http://127.0.0.1:9.proxy", "http://127.0.0.1:1"),
    ("http.cookieFile", "/dev/null"),
    ("http.version", "HTTP/1.1"),
    ("http.followRedirects", "true"),
    ("remote.origin.proxy", "http://127.0.0.1:1"),
    ("protocol.version", "2"),
    ("transfer.fsckObjects", "true"),
    ("fetch.writeCommitGraph", "true"),
    ("vcontext.inProcessHttp", "false"),
]


def _clone_of(tmp_path: Path, url: str) -> Path:
    clone = tmp_path / "clone"
    soak.git(tmp_path, "init", "-q", str(clone))
    soak.git(clone, "remote", "add", "origin", url)
    return clone


@pytest.mark.parametrize(("key", "value"), BLOCKING_SETTINGS)
def test_sync_over_http_any_of_gits_http_settings_sends_the_look_through_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, value: str
) -> None:
    """Set in the repository's configuration or given to the one command (``git -c``):
    either way git's look, never libgit2's."""
    clone = _clone_of(tmp_path, "http://127.0.0.1:9/remote.git")
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is not None
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'{key}'='{value}'")
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None
    monkeypatch.delenv("GIT_CONFIG_PARAMETERS")
    soak.git(clone, "config", key, value)
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None


@pytest.mark.parametrize(
    ("url", "name", "value"),
    [
        ("http://127.0.0.1:9/r.git", "GIT_CURL_VERBOSE", "1"),
        ("http://127.0.0.1:9/r.git", "GIT_TRACE_CURL", "1"),
        ("http://127.0.0.1:9/r.git", "http_proxy", "http://127.0.0.1:1"),
        ("https://127.0.0.1:9/r.git", "HTTPS_PROXY", "http://127.0.0.1:1"),
        ("http://127.0.0.1:9/r.git", "all_proxy", "http://127.0.0.1:1"),
        ("https://127.0.0.1:9/r.git", "GIT_SSL_NO_VERIFY", "1"),
        ("https://127.0.0.1:9/r.git", "GIT_SSL_CAINFO", "/etc/ssl/certs/ca-certificates.crt"),
        ("https://127.0.0.1:9/r.git", "SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt"),
        ("http://127.0.0.1:9/r.git", "GIT_ALLOW_PROTOCOL", "file"),
    ],
)
def test_sync_over_http_what_the_environment_tells_gits_http_sends_the_look_through_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, name: str, value: str
) -> None:
    for said in (
        "GIT_SSL_NO_VERIFY",
        "GIT_SSL_CAINFO",
        "GIT_SSL_CAPATH",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
    ):
        monkeypatch.delenv(said, raising=False)
    clone = _clone_of(tmp_path, url)
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is not None
    monkeypatch.setenv(name, value)
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None


def test_sync_over_http_plain_http_ignores_what_only_tls_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GIT_SSL_*`` say how curl checks a TLS server: nothing for an ``http://`` URL."""
    monkeypatch.setenv("GIT_SSL_CAINFO", "/etc/ssl/certs/ca-certificates.crt")
    clone = _clone_of(tmp_path, "http://127.0.0.1:9/r.git")
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is not None


@pytest.mark.parametrize(
    "rules",
    [
        [("http://127.0.0.1:1/", "srv:")],
        [("http://127.0.0.1:1/", "srv:"), ("http://127.0.0.1:2/deep/", "srv:x/")],  # longest
        [("http://127.0.0.1:2/deep/", "srv:x/"), ("http://127.0.0.1:1/", "srv:")],
        [("ssh://127.0.0.1/", "srv:")],  # not HTTP once rewritten: git's
        [("http://127.0.0.1:1/", "elsewhere:")],  # no match: "srv:x/r.git" is no URL of ours
    ],
)
def test_sync_over_http_insteadof_is_resolved_as_git_resolves_it(
    tmp_path: Path, rules: list[tuple[str, str]]
) -> None:
    """The URL looked at in process is the one ``git ls-remote --get-url`` gives."""
    clone = _clone_of(tmp_path, "srv:x/r.git")
    for base, prefix in rules:
        soak.git(clone, "config", "--add", f"url.{base}.insteadOf", prefix)
    found = HttpRemote.find(pygit2.Repository(str(clone)), "origin")
    gits = soak.git(clone, "ls-remote", "--get-url", "origin").stdout.strip()
    if gits.startswith("http://"):
        assert found is not None
        assert found.url == gits
    else:
        assert found is None


def test_sync_over_http_a_url_with_credentials_is_gits(tmp_path: Path) -> None:
    clone = _clone_of(tmp_path, "http://agent:secret@127.0.0.1:9/r.git")
    assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None


def test_sync_over_http_a_server_gone_mid_sync_is_retried_through_git(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Connection refused in process: the look is git's, which the sync's link retries
    until the server is back (here: at once, it is back before git's try)."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    port = http.port
    http.stop()
    view = RemoteView(pygit2.Repository(str(clone)), str(clone), "origin", "main", ["agent-0"])
    assert view.http is not None
    assert view.http.fetch([f"+refs/heads/main:{view.ns}heads/main"]) is None
    assert view.http.failed
    again = servers.HttpFront(tmp_path / "srv", port=port).start()
    try:
        assert view.fetch().base is not None  # (through git now)
    finally:
        again.stop()
    done = subprocess.run(["git", "fsck", "--no-progress"], cwd=clone, capture_output=True)
    assert done.returncode == 0


def _raw_commit(repo: pygit2.Repository, tree: str, parents: list[str]) -> pygit2.Oid:
    """A commit object written as is (its tree or parents need not be there)."""
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    lines += ["author A <a@example.com> 0 +0000", "committer A <a@example.com> 0 +0000", "", "x"]
    return repo.odb.write(pygit2.enums.ObjectType.COMMIT, "\n".join(lines) + "\n")


def test_sync_over_http_a_look_missing_objects_under_a_new_tip_is_not_taken(
    tmp_path: Path,
) -> None:
    """As git's fetch checks that everything under a new tip is there before it moves a
    ref (``rev-list --objects NEW --not --all``), so does the in-process look: a new commit
    whose tree or parent is missing is refused; one whose history reaches what a ref named
    before is taken."""
    clone = _clone_of(tmp_path, "http://127.0.0.1:9/r.git")
    soak.git(clone, "commit", "-q", "--allow-empty", "-m", "first")
    repo = pygit2.Repository(str(clone))
    first = repo.head.peel(pygit2.Commit).id
    empty = str(repo[first].peel(pygit2.Commit).tree_id)
    look = HttpRemote(repo, "origin", "http://127.0.0.1:9/r.git")
    before = look._tips()
    assert look._complete([_raw_commit(repo, empty, [str(first)])], before)
    assert not look._complete([_raw_commit(repo, "1" * 40, [str(first)])], before)  # no tree
    assert not look._complete([_raw_commit(repo, empty, ["2" * 40])], before)  # no parent
    assert look._complete([first], before)  # (nothing new)
    lacking = repo.odb.write(  # a tree naming a blob that is not here
        pygit2.enums.ObjectType.TREE, b"100644 a\0" + bytes.fromhex("3" * 40)
    )
    assert not look._complete([lacking], before)
    assert look._complete([repo[first].peel(pygit2.Commit).tree_id], before)


def test_sync_over_http_a_look_found_wanting_moves_no_ref_and_asks_git(
    tmp_path: Path, http: servers.HttpFront, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look found wanting (``_complete``) has moved no ref: each is as it was, and git
    looks instead."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    monkeypatch.setattr(HttpRemote, "_complete", lambda *args: False)
    old = soak.git(remote, "rev-parse", "main").stdout.strip()
    soak.git(remote, "update-ref", "refs/heads/main", _commit_on(remote, old, "next"))
    soak.git(clone, "update-ref", "refs/vcontext/remotes/origin/heads/main", old)  # (seen)
    before = _refs(clone)
    view = RemoteView(pygit2.Repository(str(clone)), str(clone), "origin", "main", ["agent-0"])
    assert view.http is not None
    assert view.http.fetch([f"+refs/heads/main:{view.ns}heads/main"]) is None
    assert view.http.failed
    assert _refs(clone) == before
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    assert view.fetch().base == pygit2.Oid(hex=main)  # (git's look)


def test_sync_over_http_a_linked_worktree_of_a_shallow_clone_is_gits(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """A shallow clone is git's to fetch into (its ``shallow`` file, its negotiation), from
    any of its worktrees: git keeps ``shallow`` in the common directory, where libgit2's
    ``is_shallow`` does not look from a linked worktree (it reads the worktree's own git
    directory). Both the in-process HTTP look and the in-process local one are left out."""
    remote = tmp_path / "srv" / "remote.git"
    _team(tmp_path, http.url(remote), agents=1)
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    soak.git(remote, "update-ref", "refs/heads/main", _commit_on(remote, main, "second"))
    shallow = tmp_path / "shallow"
    soak.git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(shallow))
    soak.git(shallow, "remote", "set-url", "origin", http.url(remote))
    linked = tmp_path / "linked"
    soak.git(shallow, "worktree", "add", "-q", "--detach", str(linked))
    assert soak.git(linked, "rev-parse", "--is-shallow-repository").stdout.strip() == "true"
    assert HttpRemote.find(pygit2.Repository(str(shallow)), "origin") is None
    assert HttpRemote.find(pygit2.Repository(str(linked)), "origin") is None
    soak.git(shallow, "remote", "set-url", "origin", str(remote))
    assert LocalRemote.find(pygit2.Repository(str(linked)), "origin") is None


def test_sync_over_http_a_look_moves_no_ref_and_no_fetch_head_before_its_check(
    tmp_path: Path, http: servers.HttpFront, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As git's fetch (``--no-write-fetch-head``): no ref moves before everything under the
    new tips is found here (a look killed at its check leaves sync's refs where they were,
    never at a tip whose history is missing), and ``FETCH_HEAD`` is never written — one a
    ``git fetch`` of the user writes while the look runs stays as that fetch wrote it."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    old = soak.git(remote, "rev-parse", "main").stdout.strip()
    new = _commit_on(remote, old, "next")
    soak.git(remote, "update-ref", "refs/heads/main", new)
    soak.git(clone, "update-ref", "refs/vcontext/remotes/origin/heads/main", old)  # (seen)
    fetch_head = clone / ".git" / "FETCH_HEAD"
    fetch_head.write_text("the user's own\n")
    at_check: list[str] = []
    complete = HttpRemote._complete

    def check(self: HttpRemote, tips: list[pygit2.Oid], before: dict[str, pygit2.Oid]) -> bool:
        at_check.append(_refs(clone))
        fetch_head.write_text("the user's fetch meanwhile\n")
        return complete(self, tips, before)

    monkeypatch.setattr(HttpRemote, "_complete", check)
    before = _refs(clone)
    view = RemoteView(pygit2.Repository(str(clone)), str(clone), "origin", "main", ["agent-0"])
    assert view.http is not None
    assert view.http.fetch([f"+refs/heads/main:{view.ns}heads/main"]) == []
    assert at_check == [before]
    assert not view.http.failed
    assert f"heads/main {new}" in _refs(clone)
    assert fetch_head.read_text() == "the user's fetch meanwhile\n"


def test_sync_over_http_a_remote_with_many_refs_is_looked_at_through_git(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """libgit2 speaks protocol v0: each look reads every ref the remote has (a host's
    ``refs/pull/*``), where git's v2 asks for the ones sync wants. Past ``MANY_REFS`` the
    look that found them counts, and the later looks are git's."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    view = _look(clone, ["agent-0"])
    assert view.http is not None
    assert not view.http.failed
    lines = "".join(f"create refs/pull/{n}/head {main}\n" for n in range(MANY_REFS + 1))
    subprocess.run(["git", "update-ref", "--stdin"], cwd=remote, input=lines, check=True, text=True)
    new = _commit_on(remote, main, "next")
    soak.git(remote, "update-ref", "refs/heads/main", new)
    view.fetch()
    assert view.http.failed
    assert view.read().base == pygit2.Oid(hex=new)
    asked = http.requests
    view.fetch()
    assert http.requests - asked >= 2  # (git's look: info/refs, then ls-refs or a fetch)


def test_sync_over_http_a_remote_with_two_thousand_refs_is_still_looked_at_in_process(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """Up to about 3,000 refs a look in process costs no more than git's, client and server
    together (``tests/bench/bench_http_look.py --extra-refs``): a host with 2,000 is read
    in process at every look, one request each."""
    remote = tmp_path / "srv" / "remote.git"
    _, [clone] = _team(tmp_path, http.url(remote), agents=1)
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    lines = "".join(f"create refs/pull/{n}/head {main}\n" for n in range(2000))
    subprocess.run(["git", "update-ref", "--stdin"], cwd=remote, input=lines, check=True, text=True)
    view = _look(clone, ["agent-0"])
    assert view.http is not None
    assert not view.http.failed
    asked = http.requests
    view.fetch()
    assert not view.http.failed
    assert http.requests - asked == 1


def _served(http: servers.HttpFront) -> list[str]:
    """Every request the front serves from now on, as ``METHOD path`` (a list that grows)."""
    served: list[str] = []
    backend = http.backend

    def logged(request: object, body: bytes) -> tuple[int, dict[str, str], bytes]:
        served.append(f"{request.command} {request.path.partition('?')[0]}")  # type: ignore[attr-defined]
        return backend(request, body)  # type: ignore[arg-type]

    http.backend = logged  # type: ignore[method-assign]
    return served


def _round(remote: Path, parent: str, text: str) -> str:
    """A commit on ``parent`` with a file of its own (a blob no clone has: it needs a pack)."""
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=remote, input=text, text=True,
        capture_output=True, check=True,
    ).stdout.strip()  # fmt: skip
    listing = soak.git(remote, "ls-tree", parent).stdout + f"100644 blob {blob}\tround-{blob}\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=remote, input=listing, text=True, capture_output=True, check=True
    ).stdout.strip()
    return soak.git(remote, "commit-tree", tree, "-p", parent, "-m", text).stdout.strip()


def _lease(remote: Path, parent: str, lease: leases.Lease) -> str:
    """A lease commit on ``parent`` saying ``lease``, set as main's lease on the remote."""
    tree = soak.git(remote, "rev-parse", f"{parent}^{{tree}}").stdout.strip()
    commit = soak.git(remote, "commit-tree", tree, "-p", parent, "-m", lease.message()).stdout
    soak.git(remote, "update-ref", leases.lease_ref("main"), commit.strip())
    return commit.strip()


@dataclass
class _Waiting:
    """A team of three whose agent-0 waits: two other agents' requests and ours on the
    remote, the lease held by a sync elsewhere, agent-0's view of the remote."""

    remote: Path
    ours: Path
    main: str
    theirs: dict[str, str]
    mine: str
    elsewhere: leases.Lease
    held: str
    repo: pygit2.Repository
    view: RemoteView
    served: list[str]


def _waiting(
    tmp_path: Path, http: servers.HttpFront, others: tuple[str, str], git_looks: bool = False
) -> _Waiting:
    """``_Waiting``, the other agents' branches named ``others`` (``git_looks``: agent-0's
    looks through git, ``vcontext.inProcessHttp false``)."""
    import time

    remote = tmp_path / "srv" / "remote.git"
    _, (ours, *_) = _team(tmp_path, http.url(remote), agents=3)
    if git_looks:
        soak.git(ours, "config", "vcontext.inProcessHttp", "false")
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    theirs = {b: _round(remote, main, f"{b}'s round\n") for b in others}
    mine = _round(remote, main, "agent-0's round\n")
    for branch, commit in [*theirs.items(), ("agent-0", mine)]:
        soak.git(remote, "update-ref", leases.request_ref("main", branch), commit)
    elsewhere = leases.mine("agent-1", "/elsewhere/agent-1", 600, time.time(), 5.0)
    held = _lease(remote, main, elsewhere)
    repo = pygit2.Repository(str(ours))
    view = RemoteView(repo, str(ours), "origin", "main", ["agent-0"])
    return _Waiting(remote, ours, main, theirs, mine, elsewhere, held, repo, view, _served(http))


def test_sync_over_http_a_waiters_look_leaves_out_the_other_agents_requests(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """PRODUCT.md "Sync at scale": a sync that waits for another agent's integration
    merges none of the other requests, so its in-process look over HTTP asks the server
    for none of them (each a commit with whole documents the server packs again for each
    look that brings it) while another sync holds the lease, or once its own requests are
    gone (merged); the remote's refs are listed first (one ``GET``), and the pack comes in
    one download. Its snapshot says so (``complete`` False) and holds its own requests
    alone; our copies of the others' are deleted, never left stale. A look that finds the
    lease free (or breakable, or this process's own) with our request waiting fetches
    every request, in the same connection (no second ``GET``): the integration needs them."""
    import os
    import time

    team = _waiting(tmp_path, http, ("agent-1", "agent-2"))
    remote, ours, main, theirs, mine = team.remote, team.ours, team.main, team.theirs, team.mine
    elsewhere, held, repo, view, served = (
        team.elsewhere, team.held, team.repo, team.view, team.served
    )  # fmt: skip

    snap = view.fetch(light=True)  # another sync holds the lease: ours alone
    assert not snap.complete
    assert snap.requests == {"agent-0": pygit2.Oid(hex=mine)}
    assert str(snap.lease_id) == held
    assert all(pygit2.Oid(hex=c) not in repo for c in theirs.values())
    assert served[0] == "GET /remote.git/info/refs"  # the listing, then one download
    assert set(served[1:]) == {"POST /remote.git/git-upload-pack"}, served

    assert view.fetch().complete  # (not light: every request, whoever holds the lease)
    assert set(view.read().requests) == {"agent-0", "agent-1", "agent-2"}
    assert not view.read().complete  # (a reading, not a look)
    soak.git(remote, "update-ref", "-d", leases.request_ref("main", "agent-2"))
    snap = view.fetch(light=True)  # light again: ours alone; the others' copies as they were
    assert set(snap.requests) == {"agent-0"}
    assert set(view.read().requests) == {"agent-0", "agent-1", "agent-2"}
    soak.git(remote, "update-ref", leases.request_ref("main", "agent-2"), theirs["agent-2"])

    soak.git(remote, "update-ref", "-d", leases.lease_ref("main"))
    del served[:]
    snap = view.fetch(light=True)  # free, ours waiting: this sync may integrate them all
    assert snap.complete
    assert snap.lease_id is None
    assert set(snap.requests) == {"agent-0", "agent-1", "agent-2"}
    assert served == ["GET /remote.git/info/refs"]  # (every object here: nothing to ask)

    soak.git(remote, "update-ref", "-d", leases.request_ref("main", "agent-0"))
    assert view.fetch(light=True).complete  # a sync's look: free is free
    snap = view.fetch(light=True, waiting=True)  # ours merged: done, the others not needed
    assert not snap.complete
    assert snap.requests == {}

    soak.git(remote, "update-ref", leases.request_ref("main", "agent-0"), mine)
    for lease in (
        leases.mine("agent-1", "/elsewhere/agent-1", -1, time.time()),  # expired
        leases.mine("agent-0", str(common_dir(repo)), 600, time.time()),  # this process's
    ):
        _lease(remote, main, lease)
        newer = _round(remote, main, f"agent-2's round after {lease.expires}\n")
        soak.git(remote, "update-ref", leases.request_ref("main", "agent-2"), newer)
        del served[:]
        snap = view.fetch(light=True, waiting=True)
        assert snap.complete, lease
        assert snap.requests["agent-2"] == pygit2.Oid(hex=newer)
        assert served.count("GET /remote.git/info/refs") == 1, served
    assert leases.this_process_holds(lease, str(common_dir(repo)))
    assert not leases.this_process_holds(elsewhere, str(common_dir(repo)))
    other = leases.Lease(lease.holder, lease.host, lease.pid, lease.where, lease.expires)
    assert not leases.this_process_holds(other, str(common_dir(repo)))  # (no start time said)
    assert lease.pid == os.getpid()
    fsck = soak.git(ours, "fsck", "--no-progress", check=False)
    assert fsck.returncode == 0, fsck.stderr


def test_sync_over_http_a_lease_that_expires_after_a_light_look_is_integrated_from_a_full_one(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """PRODUCT.md "Sync at scale" (no request left behind): a light look (another sync held
    the lease, so the other agents' requests were left out) is never what an integration
    merges from. Here the lease expires between the look and the sync's judgement of it
    (its wall clock a step ahead): the sync takes the lease, looks again with every
    request, and its one integration merges agent-1's and agent-2's waiting rounds with
    its own; no request is left on the remote."""
    import time

    from git_vcontext.remote.rounds import push_with_retries
    from git_vcontext.sync.syncer import Syncer

    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, http.url(remote), agents=3)
    rounds = {}
    for n, clone in enumerate(clones):
        soak.work(clone, f"agent-{n}", 0, soak.AgentLog(f"agent-{n}"))
        rounds[f"agents/agent-{n}"] = soak.git(clone, "rev-parse", "HEAD").stdout.strip()
    for n in (1, 2):  # published, waiting for whoever integrates next
        branch = f"agents/agent-{n}"
        soak.git(
            clones[n], "push", "-q", "--no-verify", "origin",
            f"HEAD:refs/heads/{branch}", f"HEAD:{leases.request_ref('main', branch)}",
        )  # fmt: skip
    main = soak.git(remote, "rev-parse", "main").stdout.strip()
    _lease(remote, main, leases.mine("agent-9", "/elsewhere", 30, time.time(), 5.0))

    lines: list[str] = []
    outcome = push_with_retries(
        Syncer(pygit2.Repository(str(clones[0]))),
        [("agent-0", "main")],
        "origin",
        report=lines.append,
        show=lambda _result: None,
        sleep=lambda seconds: time.sleep(min(seconds, 0.05)),
        clock=lambda: time.time() + 60,  # the lease (30 s) is over by this sync's clock
    )
    assert outcome.pushed, lines
    base = soak.git(remote, "rev-parse", "main").stdout.strip()
    for branch, commit in rounds.items():
        merged = soak.git(remote, "merge-base", "--is-ancestor", commit, base, check=False)
        assert merged.returncode == 0, (branch, lines)
    assert soak.git(remote, "for-each-ref", "refs/vcontext/").stdout == ""
    assert soak.integrations(remote) == 1


def test_sync_through_git_a_waiters_look_leaves_out_the_other_agents_requests(
    tmp_path: Path, http: servers.HttpFront
) -> None:
    """PRODUCT.md "Sync at scale": the light look of a sync whose looks go through git (SSH;
    HTTP with ``vcontext.inProcessHttp false`` here, one git command per ``info/refs``
    ``GET``) leaves the other agents' requests out, as the in-process look does, while the
    lease is held by another sync (git lists the refs only as it fetches: the lease as the
    last look left it decides): one fetch, ours fetched exactly (``agent-00``'s request,
    whose name starts with ours, is not brought), our copies of the others' kept as the
    last full look left them. The look that finds the lease released with our request
    waiting fetches the requests in a second command, so the integration has them all; a
    look after one that saw the lease free is one command with every request, and once
    ours are merged a waiter's look is one command without the others'."""

    team = _waiting(tmp_path, http, ("agent-1", "agent-00"), git_looks=True)
    remote, ours, main, theirs, mine = team.remote, team.ours, team.main, team.theirs, team.mine
    elsewhere, held, repo, view, served = (
        team.elsewhere, team.held, team.repo, team.view, team.served
    )  # fmt: skip
    assert view.http is None  # (the setting: every look through git)

    snap = view.fetch(light=True, waiting=True)  # never looked: the lease unknown, a full look
    assert snap.complete
    assert set(snap.requests) == {"agent-0", "agent-1", "agent-00"}
    assert served.count("GET /remote.git/info/refs") == 1, served
    newer = {b: _round(remote, main, f"{b}'s next round\n") for b in theirs}
    for branch, commit in newer.items():
        soak.git(remote, "update-ref", leases.request_ref("main", branch), commit)
    del served[:]
    snap = view.fetch(light=True, waiting=True)  # held when last seen, and still: ours alone
    assert not snap.complete
    assert snap.requests == {"agent-0": pygit2.Oid(hex=mine)}
    assert str(snap.lease_id) == held
    assert all(pygit2.Oid(hex=c) not in repo for c in newer.values())
    assert served.count("GET /remote.git/info/refs") == 1, served  # one git fetch
    seen = view.read().requests  # the others' copies: as the full look left them
    assert {b: str(c) for b, c in seen.items() if b != "agent-0"} == theirs

    soak.git(remote, "update-ref", "-d", leases.lease_ref("main"))
    del served[:]
    snap = view.fetch(light=True, waiting=True)  # released, ours waiting: every request
    assert snap.complete
    assert snap.lease_id is None
    assert {b: str(c) for b, c in snap.requests.items()} == {**newer, "agent-0": mine}
    assert served.count("GET /remote.git/info/refs") == 2, served  # the second command
    del served[:]
    assert view.fetch(light=True, waiting=True).complete  # free when last seen: one command
    assert served.count("GET /remote.git/info/refs") == 1, served

    _lease(remote, main, elsewhere)
    assert view.fetch().lease_id is not None  # (a full look: it learns the lease is held)
    soak.git(remote, "update-ref", "-d", leases.request_ref("main", "agent-1"))
    soak.git(remote, "update-ref", "-d", leases.request_ref("main", "agent-0"))
    soak.git(remote, "update-ref", "-d", leases.lease_ref("main"))
    del served[:]
    snap = view.fetch(light=True, waiting=True)  # ours merged: done, one command
    assert not snap.complete
    assert snap.requests == {}
    assert snap.lease_id is None
    assert served.count("GET /remote.git/info/refs") == 1, served
    assert set(view.read().requests) == {"agent-1", "agent-00"}  # (not looked at since)
    assert view.fetch(light=True).complete  # a sync's look: free is free
    assert set(view.read().requests) == {"agent-00"}  # agent-1's: pruned by that look
    fsck = soak.git(ours, "fsck", "--no-progress", check=False)
    assert fsck.returncode == 0, fsck.stderr
