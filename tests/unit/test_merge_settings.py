"""gitio/settings: git's merge settings read, and a bad favor returned as a warning, never
printed (below the command layer nothing prints: issue 29)."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_vcontext.gitio.settings import checked_favor, merge_settings
from helpers.run import run_git


@pytest.mark.parametrize(("value", "side"), [("ours", "ours"), (" Theirs ", "theirs"), ("", None)])
def test_a_favor_side_is_read_in_any_case(value: str, side: str | None) -> None:
    assert checked_favor(value) == (side, None)


def test_a_bad_favor_is_returned_as_a_warning_and_nothing_is_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    run_git(tmp_path, "init", "-q")
    run_git(tmp_path, "config", "merge.vcontext.favor", "mine")
    monkeypatch.delenv("GIT_VCONTEXT_FAVOR", raising=False)
    settings = merge_settings(cwd=tmp_path)
    assert settings.favor is None
    assert len(settings.warnings) == 1
    assert settings.warnings[0].startswith("ignoring favor 'mine'")
    assert capfd.readouterr() == ("", "")


def test_without_posix_spawn_the_settings_are_read_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``merge_settings()`` (no ``cwd``: the merge driver, ``git vcontext merge``) where
    ``os.posix_spawnp`` is missing reads git's settings of the current directory, as git
    does (PRODUCT.md: merge.conflictStyle diff3 gives a base section): it listed them in a
    folder named "None" (``str(None)``), found nothing and merged without the base."""
    run_git(tmp_path, "init", "-q")
    run_git(tmp_path, "config", "merge.conflictStyle", "diff3")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delattr("os.posix_spawnp")
    assert merge_settings().diff3
