"""A remote over HTTP(S) whose looks ``sync --push`` takes in process through libgit2 (no
``git fetch`` + ``git-remote-http`` + ``unpack-objects`` processes per look, and one
request, ``GET info/refs``, for a look that finds nothing new; a look may choose what to
fetch once it has seen the remote's refs, at no second request: ``fetch``'s ``choose``),
only where git itself would do nothing different: an anonymous read of a plain
``http://``/``https://`` URL with none of git's HTTP settings in play.

Taken only when all of these hold (anything else is git's):

- ``vcontext.inProcessHttp`` not false;
- the remote's one URL, after git's ``url.<base>.insteadOf`` (the longest match, as git),
  is ``http://`` or ``https://`` with no user or password in it;
- no ``http.*`` setting at all (``extraHeader``, ``sslCAInfo``, ``proxy``, ``cookieFile``,
  ``version``, …, for any URL), no ``protocol.*``, ``remote.<name>.proxy*``,
  ``fetch.fsckObjects``/``transfer.fsckObjects``/``fetch.fsck.*``,
  ``fetch.writeCommitGraph``, ``core.gitProxy``, partial clone (``extensions.partialClone``,
  ``remote.<name>.promisor``/``partialCloneFilter``) — ``git -c`` ones counted —, no
  checked-out submodule (git's fetch may fetch theirs), the repository not shallow;
- nothing in the environment git's HTTP reads: ``GIT_CURL_*``, ``GIT_HTTP_*``,
  ``GIT_TRACE_CURL*``, ``GIT_PROXY_*``, ``GIT_ALLOW_PROTOCOL``, ``GIT_PROTOCOL``,
  ``http_proxy``/``https_proxy``/``all_proxy`` (either case); over ``https://`` also any
  ``GIT_SSL_*`` and OpenSSL's ``SSL_CERT_FILE``/``SSL_CERT_DIR`` (curl reads no TLS setting
  for a plain ``http://`` URL).

libgit2 then reads anonymously (protocol v0), follows no redirect to another host (one on
the same host it follows, as git's default ``http.followRedirects=initial`` does), uses
no proxy, gives up at the sync's deadline and only downloads (``git_remote_download``:
no ref and no ``FETCH_HEAD`` written, as git's ``--no-write-fetch-head``); this module
checks that everything under the new tips is here as git's fetch does (else no ref moves
and git looks), then sets the DSTs, prunes and updates the remote-tracking refs as
``LocalRemote.fetch`` does.
Anything libgit2 cannot do — a 401/403 (credentials: git and its credential helper), a
redirect to another host, a certificate it does not trust, a refused or dropped
connection, a 429/502/503 — sends that look, and every later look of the sync, through
git (the sync's ``Link``, which retries what is transient). More than ``MANY_REFS`` refs listed: the
later looks are git's (protocol v2 asks for the wanted refs only).
"""

from __future__ import annotations

import contextlib
import os
from urllib.parse import urlsplit

from ..errors import OperationalError
from ..faults import step
from . import config_entries, config_flag
from .localremote import (
    expand_refspec,
    fetch_refspecs,
    lacking,
    prune_fetched,
    update_tracking,
)
from .places import common_dir, is_shallow
from .refs import set_ref

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    import pygit2
    from pygit2 import Oid, Repository

SETTING = "vcontext.inProcessHttp"
ENVIRONMENT = ("GIT_SSL_", "GIT_CURL_", "GIT_HTTP_", "GIT_TRACE_CURL", "GIT_PROXY_")
"""Prefixes of the environment variables git's HTTP (curl) reads."""
ENVIRONMENT_NAMES = ("GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL", "GIT_PROTOCOL_FROM_USER")
NOTHING = "+refs/vcontext/none:refs/vcontext/none"
"""A refspec that wants nothing (no ref of that name is ever made): a download of it
connects and lists the remote's refs, and asks for no pack."""
MANY_REFS = 3000
"""More refs than this in a remote's advertisement: later looks are git's. libgit2 speaks
protocol v0, whose ``info/refs`` lists every ref of the remote at each look (a host's
``refs/pull/*`` too); git's v2 asks only for those the refspecs name (``ref-prefix``).
Measured (``tests/bench/bench_http_look.py --extra-refs``, client + server CPU per look,
medians): in process costs about 7 ms more per 1,000 refs, git's look the same at any
count; they cross between 3,000 (a look that brings a commit) and 4,000 (one that finds
nothing new)."""


class HttpRemote:
    """A remote over HTTP(S) read in process (see the module)."""

    def __init__(self, repo: Repository, name: str, url: str) -> None:
        self.repo, self.name, self.url = repo, name, url
        self.failed = False  # a look failed in process: every later one is git's
        self.left: Callable[[], float | None] | None = None  # seconds a look may take

    @classmethod
    def find(cls, repo: Repository, remote: str) -> HttpRemote | None:
        """``remote`` (a remote's name, or a URL) when sync may look at it in process."""
        if not config_flag(repo, SETTING, True) or is_shallow(repo):  # (git's view of it)
            return None
        if os.path.isdir(os.path.join(common_dir(repo), "modules")):
            return None  # submodules checked out: git's fetch may fetch theirs too
        configured = remote in repo.remotes.names()
        if _blocking(config_entries(repo), remote if configured else None):
            return None
        from .transport import remote_config  # (the URL as git reaches it: insteadOf, vcs)

        urls = remote_config(repo.path, remote).urls
        if len(urls) != 1:
            return None
        url = urls[0]
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or "@" in parts.netloc or not parts.hostname:
            return None
        if _environment_says(tls=parts.scheme == "https"):
            return None
        return cls(repo, remote, url)

    def fetch(
        self,
        refspecs: list[str],
        *,
        prune: bool = False,
        notes: list[str] | None = None,
        choose: Callable[[dict[str, Oid]], list[str]] | None = None,
    ) -> list[str] | None:
        """As ``LocalRemote.fetch``: fetch ``refspecs`` (``+SRC:DST``, one ``*`` at most);
        the exact SRCs the remote lacks; with ``prune`` DSTs whose SRC is gone are deleted;
        ``notes``: remote-tracking refs left as they were (``update_tracking``). None: leave
        it to git (this look failed here, or an earlier one did).

        ``choose``: what to fetch is decided once the remote's refs are listed (its one
        ``GET info/refs``, before any pack is asked for): given them, it returns the
        refspecs to fetch (``refspecs`` or fewer); it is asked again once those came (a
        commit they brought may change its mind), and what more it asks for comes over
        the same connection. ``prune`` goes by the refspecs fetched: the DSTs of those
        left out stay as an earlier look left them."""
        if self.failed:
            return None
        before = self._tips()
        heads, chosen = self._bring(refspecs, choose)
        wanted: dict[str, tuple[str, Oid]] = {}
        for spec in chosen:
            for src, dst in expand_refspec(spec, list(heads or {})):
                wanted[dst] = (src, (heads or {})[src])
        if heads is None or not self._complete([oid for _, oid in wanted.values()], before):
            self.failed = True
            return None
        self.failed = len(heads) > MANY_REFS  # (this look counts: the later ones are git's)
        try:
            step("set fetched refs")  # a kill point of the fault-injection tests
            if prune:
                prune_fetched(self.repo, chosen, set(wanted))
            own = fetch_refspecs(self.repo, self.name)  # (once for the look, as git's fetch)
            for dst, (src, oid) in wanted.items():
                set_ref(self.repo, dst, oid)
                update_tracking(
                    self.repo, self.name, src, oid, own, notes
                )  # origin/main too, as git
        except (OSError, KeyError) as exc:
            raise OperationalError(f"fetching from {self.name}: {exc}") from None
        return lacking(chosen, {src for src, _ in wanted.values()})

    def _bring(
        self, refspecs: list[str], choose: Callable[[dict[str, Oid]], list[str]] | None
    ) -> tuple[dict[str, Oid] | None, list[str]]:
        """Download what ``refspecs`` need, or what ``choose`` picks once the remote's refs
        are listed (see ``fetch``): (the remote's refs, None when libgit2 failed; the
        refspecs fetched). Objects only: no ref, no ``FETCH_HEAD`` moved."""
        remote = self._remote()
        if choose is None:
            return self._download(remote, refspecs), refspecs
        chosen: list[str] = []
        heads = self._download(remote, [NOTHING])  # (the listing alone: no pack asked for)
        for _ in range(3):  # (it settles at the second answer: the third only says so)
            if heads is None or (more := choose(heads)) == chosen:
                break
            heads, chosen = self._download(remote, more), more
        return heads, chosen

    def _tips(self) -> dict[str, Oid]:
        """Every ref of the repository and the object it names (symbolic ones left out)."""
        import pygit2

        found = {}
        for name in list(self.repo.references):
            ref = self.repo.references.get(name)
            if ref is not None and isinstance(ref.target, pygit2.Oid):
                found[name] = ref.target
        return found

    def _complete(self, tips: list[Oid], before: dict[str, Oid]) -> bool:
        """Whether everything ``tips`` need is here, as git's fetch checks before it moves a
        ref (``rev-list --objects NEW --not --all``): each new commit, its parents down to
        what a ref named before the look, its trees and blobs; a blob or a tag and what it
        tags; a tree and what it holds. libgit2 checks each object it receives, not that
        none is missing."""
        import pygit2

        old = set(before.values())
        new = [oid for oid in dict.fromkeys(tips) if oid not in old]
        seen: set[Oid] = set()
        try:
            commits = self._peeled(new, seen)
            if not commits:
                return commits is not None
            walker = self.repo.walk(None, pygit2.enums.SortMode.NONE)
            for oid in commits:
                walker.push(oid)
            for oid in old:
                with contextlib.suppress(pygit2.GitError, KeyError, ValueError):
                    walker.hide(oid)  # (a ref to a blob or a tree: nothing to hide)
            return all(self._tree_complete(commit.tree_id, seen) for commit in walker)
        except (pygit2.GitError, KeyError, ValueError):
            return False  # (a parent that is not here)

    def _peeled(self, new: list[Oid], seen: set[Oid]) -> list[Oid] | None:
        """The commits ``new`` names (tags peeled); None when one of them is not here, or a
        tree lacks what it holds (a ref to a tree: its blobs are checked too)."""
        import pygit2

        commits: list[Oid] = []
        for oid in new:
            obj = self.repo.get(oid)
            while isinstance(obj, pygit2.Tag):
                obj = self.repo.get(obj.target)
            if isinstance(obj, pygit2.Commit):
                commits.append(obj.id)
            elif obj is None or (
                isinstance(obj, pygit2.Tree) and not self._tree_complete(obj.id, seen)
            ):
                return None
        return commits

    def _tree_complete(self, tree_id: Oid, seen: set[Oid]) -> bool:
        import pygit2

        if tree_id in seen:
            return True
        tree = self.repo.get(tree_id)
        if not isinstance(tree, pygit2.Tree):
            return False
        for entry in tree:
            mode = entry.filemode
            if mode == pygit2.enums.FileMode.TREE:
                if not self._tree_complete(entry.id, seen):
                    return False
            elif mode != pygit2.enums.FileMode.COMMIT and entry.id not in self.repo:
                return False  # (a submodule's commit is not ours to have)
        seen.add(tree_id)
        return True

    def _remote(self) -> pygit2.Remote | None:
        """An anonymous remote of our URL for one look (None: libgit2 rewrote the URL)."""
        import pygit2

        try:
            remote = self.repo.remotes.create_anonymous(self.url)
        except (pygit2.GitError, ValueError):
            return None
        return remote if remote.url == self.url else None  # (rewritten: not what git does)

    def _download(self, remote: pygit2.Remote | None, refspecs: list[str]) -> dict[str, Oid] | None:
        """Bring what ``refspecs`` need with libgit2's ``git_remote_download``: the pack
        only, no ref and no ``FETCH_HEAD`` moved (``git_remote_fetch`` sets the DSTs before
        the look is checked and, in libgit2 1.9, writes ``FETCH_HEAD`` whatever its
        ``update_fetchhead`` says); the remote's refs as it listed them, None when libgit2
        failed or its ``git_remote_download`` cannot be found. The first download of
        ``remote`` connects (``GET info/refs``); a later one of the same asks the same
        connection for more (its listing kept: no second ``GET``)."""
        import pygit2

        download = _remote_download()
        if download is None or remote is None:
            return None
        try:  # (pygit2's internals: another pygit2 that lacks one makes every look git's)
            from pygit2.callbacks import git_fetch_options, git_proxy_options
            from pygit2.ffi import C, ffi
            from pygit2.utils import StrArray

            _time_limit(None if self.left is None else self.left())
            with git_fetch_options(None) as payload:
                opts = payload.fetch_options
                opts.prune = C.GIT_FETCH_NO_PRUNE
                opts.update_fetchhead = 0
                opts.download_tags = C.GIT_REMOTE_DOWNLOAD_TAGS_NONE
                opts.follow_redirects = C.GIT_REMOTE_REDIRECT_NONE  # (libgit2: "off-site")
                with git_proxy_options(remote, opts.proxy_opts, None), StrArray(refspecs) as arr:
                    address = [
                        int(ffi.cast("uintptr_t", p)) for p in (remote._remote, arr.ptr, opts)
                    ]
                    payload.check_error(download(*address))
            heads = remote.list_heads(connect=False)
            return {h.name: h.oid for h in heads if h.name is not None}
        except (pygit2.GitError, ValueError, KeyError, OSError, ImportError, AttributeError):
            return None


def _time_limit(seconds: float | None) -> None:
    """Have libgit2 give up connecting, and waiting for the server, after ``seconds`` (the
    sync's deadline, as its git commands are killed then; None: no limit, as git's).

    Process-wide (libgit2's global options): safe while one process runs one sync's looks
    at a time. The CLI runs one sync; the threaded MCP server runs each sync holding its
    one ``GitSide`` lock, and every in-process look is a sync's (``remote.view``), so no
    other sync's deadline reaches a look (tests/serve/test_mcp_one_sync_at_a_time.py).
    Whatever looks in-process outside a sync, or syncs beside another in one process,
    must hold such a lock across this setting and its look."""
    import pygit2
    from pygit2.enums import Option

    limit = 0 if seconds is None else max(1, int(seconds * 1000))
    pygit2.option(Option.SET_SERVER_CONNECT_TIMEOUT, limit)
    pygit2.option(Option.SET_SERVER_TIMEOUT, limit)


_DOWNLOAD: list[Callable[[int, int, int], int] | None] = []
"""libgit2's ``git_remote_download`` once found (pygit2 declares no binding of it)."""


def _remote_download() -> Callable[[int, int, int], int] | None:
    """libgit2's ``git_remote_download(remote, refspecs, options)`` from the libgit2 pygit2
    is linked with (its extension module's dependencies: the wheel's bundled copy or the
    system's); None when it cannot be found (every look then git's)."""
    if not _DOWNLOAD:
        try:
            import cffi  # type: ignore[import-untyped]  # (pygit2's own dependency)
            from pygit2 import _libgit2

            ffi = cffi.FFI()
            ffi.cdef("int git_remote_download(void *, const void *, const void *);")
            lib = ffi.dlopen(_libgit2.__file__)
            found = lib.git_remote_download

            def download(remote: int, refspecs: int, options: int) -> int:
                return int(found(*(ffi.cast("void *", a) for a in (remote, refspecs, options))))

            _DOWNLOAD.append(download)
        except (ImportError, OSError, AttributeError):
            _DOWNLOAD.append(None)
    return _DOWNLOAD[0]


def _environment_says(*, tls: bool) -> bool:
    """Whether the environment sets anything git's HTTP would read (``tls`` False: over
    plain HTTP, where curl reads none of the ``GIT_SSL_*`` ones)."""
    for name in os.environ:
        if not tls and name.startswith("GIT_SSL_"):
            continue
        if name.startswith(ENVIRONMENT) or name in ENVIRONMENT_NAMES:
            return True
        if name.lower() in ("http_proxy", "https_proxy", "all_proxy"):
            return True
        if tls and name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):  # (libgit2's OpenSSL, not git's)
            return True
    return False


def _blocking(keys: list[tuple[str, str | None]], remote: str | None) -> bool:
    """Whether a setting would make git's read differ from libgit2's."""
    for key, _ in keys:
        low = key.lower()
        if low.startswith(("http.", "protocol.", "fetch.fsck.")) or low in (
            "fetch.fsckobjects",
            "transfer.fsckobjects",
            "fetch.writecommitgraph",  # (git writes a commit-graph after its fetch)
            "extensions.partialclone",
            "core.gitproxy",
        ):
            return True
        if remote is not None and low.startswith(f"remote.{remote}.".lower()):
            tail = low[len(f"remote.{remote}.") :]
            if tail.startswith("proxy") or tail in ("promisor", "partialclonefilter", "vcs"):
                return True
    return False
