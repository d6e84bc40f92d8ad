"""``sync --push`` over HTTPS against a real TLS server on loopback: nginx with a
self-signed certificate the test makes (``openssl req -x509``), in front of ``git
http-backend`` through fcgiwrap (``helpers.git_servers.NginxFront(tls=True)``).

PRODUCT.md, "Sync at scale" (transports): over any transport git speaks, sync does what git
would do — git's own HTTP settings are never bypassed. The in-process look
(``gitio.httpremote``, libgit2) checks a server's certificate against the certificates
Python's ``ssl`` finds; one it does not trust is not accepted in process and git's look
fails as git fails (one line, git's own certificate message, exit 3). Trusting the
certificate the way git is told to (``http.sslCAInfo``, ``GIT_SSL_CAINFO``, OpenSSL's
``SSL_CERT_FILE``) sends the looks to git, and the sync lands.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest

from git_vcontext.gitio.httpremote import HttpRemote
from git_vcontext.remote.view import RemoteView
from helpers import git_servers as servers
from helpers import soak

TLS_ENVIRONMENT = ("GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_SSL_NO_VERIFY", "SSL_CERT_FILE")
"""Whatever of these the test runner has is not the test's: each case sets its own."""
CLEAN = {name: None for name in (*TLS_ENVIRONMENT, "SSL_CERT_DIR")}


@pytest.fixture
def https(tmp_path: Path) -> Iterator[servers.NginxFront]:
    if why := servers.NginxFront.available(tls=True):
        pytest.skip(why)
    (tmp_path / "srv").mkdir()
    front = servers.NginxFront(tmp_path / "srv", tmp_path / "front", tls=True)
    try:
        front.start()
    except servers.Unavailable as exc:
        pytest.skip(f"nginx with TLS cannot run here: {exc}")
    yield front
    front.stop()


@pytest.fixture(autouse=True)
def _no_tls_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CLEAN:
        monkeypatch.delenv(name, raising=False)


def _team(root: Path, front: servers.NginxFront) -> tuple[Path, list[Path]]:
    """The remote served over HTTPS and two agents' clones, made while the clones trust the
    certificate (setting up is not what is tested); the trust is taken back after."""
    remote = root / "srv" / "remote.git"
    trusted = {"GIT_SSL_CAINFO": str(front.certificate)}
    with pytest.MonkeyPatch.context() as env:
        for name, value in trusted.items():
            env.setenv(name, value)
        return soak.setup(root, 2, remote=remote, url=front.url(remote))


def _both_land(remote: Path, clones: list[Path], env: dict[str, str | None]) -> None:
    """Each agent does a round's work and syncs; each sync exits 0 and lands on main."""
    for n, clone in enumerate(clones):
        agent = f"agent-{n}"
        before = soak.git(remote, "rev-parse", "main").stdout
        soak.work(clone, agent, 0, soak.AgentLog(agent))
        result = soak.sync(clone, agent, {**CLEAN, **env})
        assert result["exit"] == 0, result["output"]
        assert soak.git(remote, "rev-parse", "main").stdout != before  # (its round landed)
    fsck = soak.git(remote, "fsck", "--no-progress", check=False)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


def test_sync_over_https_an_untrusted_certificate_fails_as_git_fails(
    tmp_path: Path, https: servers.NginxFront
) -> None:
    """A self-signed certificate nothing trusts: the in-process look is tried (no setting
    says otherwise) and does not accept it; git's look then fails, and so does the sync —
    one line with git's own certificate message, exit 3, no traceback, nothing pushed."""
    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, https)
    assert HttpRemote.find(pygit2.Repository(str(clones[0])), "origin") is not None
    assert not _libgit2_trusts(clones[0], {})
    view = RemoteView(pygit2.Repository(str(clones[0])), str(clones[0]), "origin", "main", [])
    with pytest.raises(Exception, match="certificate"):  # (git's look, after libgit2's)
        view.fetch()
    assert view.http is not None
    assert view.http.failed

    _both_fail_as_git_fails(remote, clones, {})


LIBGIT2_LOOK = """
import sys
import pygit2
from git_vcontext.gitio.httpremote import HttpRemote
repo = pygit2.Repository(sys.argv[1])
remote = HttpRemote(repo, "origin", sys.argv[2])
found = remote._download(remote._remote(), ["+refs/heads/main:refs/vcontext/probe"])
sys.exit(0 if found is not None else 1)
"""


def _libgit2_trusts(clone: Path, env: dict[str, str | None]) -> bool:
    """Whether libgit2 (pygit2, in a fresh process with ``env``) reads the remote."""
    url = soak.git(clone, "remote", "get-url", "origin").stdout.strip()
    probe = subprocess.run(
        [sys.executable, "-c", LIBGIT2_LOOK, str(clone), url], capture_output=True,
        env=soak.environment({**CLEAN, **env}), check=False,
    )  # fmt: skip
    return probe.returncode == 0


def _gits_refusal(clone: Path, env: dict[str, str | None]) -> str | None:
    """What git itself says reading the remote with ``env`` (``fatal: `` left out); None
    when git reads it."""
    gits = subprocess.run(
        ["git", "ls-remote", "origin"], cwd=clone, capture_output=True, text=True,
        env=soak.environment({**CLEAN, **env, "GIT_TERMINAL_PROMPT": "0"}), check=False,
    )  # fmt: skip
    if gits.returncode == 0:
        return None
    return gits.stderr.strip().removeprefix("fatal: ")


def _both_fail_as_git_fails(remote: Path, clones: list[Path], env: dict[str, str | None]) -> None:
    """Each agent's sync exits 3 with one line holding git's own refusal (the certificate
    message of git's TLS library: OpenSSL's ``SSL certificate problem: …``, GnuTLS's
    ``server certificate verification failed …``), no traceback, nothing pushed."""
    before = soak.git(remote, "for-each-ref").stdout
    for n, clone in enumerate(clones):
        refusal = _gits_refusal(clone, env)
        assert refusal is not None
        assert "certificate" in refusal, refusal
        agent = f"agent-{n}"
        soak.work(clone, agent, 0, soak.AgentLog(agent))
        result = soak.sync(clone, agent, {**CLEAN, **env, "GIT_TERMINAL_PROMPT": "0"})
        said = result["output"].strip()
        assert result["exit"] == 3, said
        assert "Traceback" not in said
        assert len(said.splitlines()) == 1, said
        assert refusal in said, said
    assert soak.git(remote, "for-each-ref").stdout == before


def test_sync_over_https_trusted_with_http_sslcainfo_looks_through_git_and_lands(
    tmp_path: Path, https: servers.NginxFront
) -> None:
    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, https)
    for clone in clones:
        soak.git(clone, "config", "http.sslCAInfo", str(https.certificate))
        assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None
    _both_land(remote, clones, {})


def test_sync_over_https_trusted_with_git_ssl_cainfo_looks_through_git_and_lands(
    tmp_path: Path, https: servers.NginxFront, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, https)
    monkeypatch.setenv("GIT_SSL_CAINFO", str(https.certificate))
    for clone in clones:
        assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None
    _both_land(remote, clones, {"GIT_SSL_CAINFO": str(https.certificate)})


@pytest.mark.parametrize("name", ["SSL_CERT_FILE", "SSL_CERT_DIR"])
def test_sync_over_https_openssls_certificate_variables_give_what_git_gives(
    tmp_path: Path, https: servers.NginxFront, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """``SSL_CERT_FILE``/``SSL_CERT_DIR`` are OpenSSL's: Python's ``ssl`` reads them, and
    so does libgit2 here (pygit2 hands it ``ssl.get_default_verify_paths()``), but git's
    curl reads them only when built with OpenSSL — Debian's and Ubuntu's git is built with
    GnuTLS, which ignores them. Taken in process, a sync would trust a certificate git
    does not: the look is git's, so the sync lands where git reads the remote and fails
    as git fails where it does not."""
    remote = tmp_path / "srv" / "remote.git"
    _, clones = _team(tmp_path, https)
    if name == "SSL_CERT_DIR":
        folder = tmp_path / "certs"
        folder.mkdir()
        hashed = subprocess.run(
            ["openssl", "x509", "-hash", "-noout", "-in", str(https.certificate)],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        (folder / f"{hashed}.0").write_bytes(https.certificate.read_bytes())
        value = str(folder)
    else:
        value = str(https.certificate)
    assert _libgit2_trusts(clones[0], {name: value})  # (in process it would be read)
    monkeypatch.setenv(name, value)
    for clone in clones:
        assert HttpRemote.find(pygit2.Repository(str(clone)), "origin") is None
    if _gits_refusal(clones[0], {name: value}) is None:
        _both_land(remote, clones, {name: value})
    else:
        _both_fail_as_git_fails(remote, clones, {name: value})
