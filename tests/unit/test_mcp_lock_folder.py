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
