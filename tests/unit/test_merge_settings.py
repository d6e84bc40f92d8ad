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
