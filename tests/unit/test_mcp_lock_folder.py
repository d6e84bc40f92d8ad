"""The MCP server's lock folder for a plain directory lives in the shared temporary folder:
it must be this user's alone (PRODUCT.md, "MCP server": concurrent writers take turns;
"Nothing from outside reaches" the tool unchecked: a folder another user made first is
not ours to create lock files in)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from git_vcontext.errors import OperationalError
from git_vcontext.mcp_server.locks import Locks


@pytest.fixture
def tmp_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path / f"git-vcontext-{os.getuid()}"


def test_mcp_lock_folder_is_made_private_and_used(tmp_root: Path) -> None:
    locks = Locks(None)
    assert locks.folder == str(tmp_root)
    assert stat.S_IMODE(tmp_root.stat().st_mode) == 0o700
    with locks.hold("/some/doc.json"):
        assert len(list(tmp_root.iterdir())) == 1
    assert list(tmp_root.iterdir()) == []  # let go: its file is gone too


def test_mcp_lock_files_do_not_pile_up_one_per_document_ever_served(tmp_root: Path) -> None:
    """The folder in the shared /tmp held one lock file per document path ever served
    (thousands after a test run); it holds only the locks held now."""
    locks = Locks(None)
    for i in range(300):
        with locks.hold(f"/work/doc-{i}.json"), locks.hold(f"/work/other-{i}.json"):
            assert len(list(tmp_root.iterdir())) == 2
    assert list(tmp_root.iterdir()) == []


def test_a_folder_an_older_version_filled_is_emptied_of_locks_nobody_holds(
    tmp_root: Path,
) -> None:
    """Lock files left by older versions go when a server starts; one another process
    holds stays (its holder removes it)."""
    import subprocess
    import sys

    tmp_root.mkdir(mode=0o700)
    for i in range(50):
        (tmp_root / f"{i:040x}.lock").write_text("")
    held = tmp_root / ("f" * 40 + ".lock")
    held.write_text("")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_FOR_EVER, str(held)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        Locks(None)
        assert [p.name for p in tmp_root.iterdir()] == [held.name]
    finally:
        holder.kill()
        holder.wait()


HOLD_FOR_EVER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(600)
"""

TAKE_TURNS = """
import os, sys, time
from git_vcontext.mcp_server.locks import Locks
locks = Locks(None)
counter = sys.argv[1]
for _ in range(int(sys.argv[2])):
    with locks.hold("/shared/doc.json"):
        with open(counter) as fh:
            n = int(fh.read())
        time.sleep(0)  # another writer would come in here if the lock let it
        with open(counter, "w") as fh:
            fh.write(str(n + 1))
"""


def test_servers_on_one_folder_still_exclude_each_other_with_lock_files_removed(
    tmp_path: Path,
) -> None:
    """PRODUCT.md "MCP server": concurrent writers of one document take turns, across
    servers. Three server processes serving the same plain folder (the same lock folder)
    each count to 300 under the document's lock while the lock file is removed at every
    release: no count is lost (two holders at once would lose some), and no file is left."""
    import subprocess
    import sys

    counter = tmp_path / "counter"
    counter.write_text("0")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    workers = [
        subprocess.Popen([sys.executable, "-c", TAKE_TURNS, str(counter), "300"], env=env)
        for _ in range(3)
    ]
    assert [w.wait(timeout=300) for w in workers] == [0, 0, 0]
    assert counter.read_text() == "900"
    assert list((tmp_path / f"git-vcontext-{os.getuid()}").iterdir()) == []


def test_mcp_lock_folder_of_an_older_version_is_closed_to_others(tmp_root: Path) -> None:
    tmp_root.mkdir(mode=0o755)
    os.chmod(tmp_root, 0o755)
    Locks(None)
    assert stat.S_IMODE(tmp_root.stat().st_mode) == 0o700


@pytest.mark.parametrize("kind", ["link", "open to others", "a file"])
def test_mcp_lock_folder_not_ours_alone_is_refused(tmp_root: Path, kind: str) -> None:
    if kind == "link":
        (tmp_root.parent / "elsewhere").mkdir(mode=0o700)
        tmp_root.symlink_to(tmp_root.parent / "elsewhere")
    elif kind == "open to others":
        tmp_root.mkdir()
        os.chmod(tmp_root, 0o777)
    else:
        tmp_root.write_text("")
    with pytest.raises(OperationalError, match="not a folder of this user's alone"):
        Locks(None)
    if kind == "open to others":
        assert list(tmp_root.iterdir()) == []  # nothing created in it


def test_mcp_lock_folder_without_posix_owners_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system has no user ids (Windows: no ``os.getuid``, and ``stat`` reports
    every writable folder as mode 0777) the folder cannot be checked for an owner or
    mode: the server still starts and locks (it raised AttributeError from ``_tighten``,
    and ``private_folder`` refused every folder as open to others)."""
    import posix
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delattr(os, "getuid")
    monkeypatch.delattr(posix, "getuid")
    folder = tmp_path / "git-vcontext-user"
    folder.mkdir()
    os.chmod(folder, 0o777)  # what Windows' stat says of any folder one may write in

    locks = Locks(None)

    assert locks.folder == str(folder)
    with locks.hold("/some/doc.json"):
        assert len(list(folder.iterdir())) == 1
    assert list(folder.iterdir()) == []
