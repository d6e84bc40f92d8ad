"""Shared fixtures: the reference corpus (optional), isolated git repositories, the CLI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from helpers.run import REPO_ROOT, run_git

if TYPE_CHECKING:
    from helpers.git_servers import HttpFront

# Property tests judge behaviour, never speed: a machine under load (CI, parallel workers) must
# not fail them on hypothesis' per-example deadline or its "too slow" health check.
settings.register_profile("vcontext", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI (.ci/run) draws the same cases on every run, so whether a change lands depends on the
# change alone; a developer's run draws new ones each time and so keeps searching.
settings.register_profile("ci", parent=settings.get_profile("vcontext"), derandomize=True)
# A long search (a nightly job, or before a release): many more cases per property, new ones
# each run; failures are kept in .hypothesis/ and replayed first by the next run.
settings.register_profile("search", parent=settings.get_profile("vcontext"), max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "vcontext"))


def find_shared() -> Path | None:
    """``../shared`` next to the checkout (or $VCONTEXT_SHARED); None in a user's clone."""
    env = os.environ.get("VCONTEXT_SHARED")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared")
    for c in candidates:
        if (c / "corpus").is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The reference material; tests that use it skip cleanly when it is absent."""
    found = find_shared()
    if found is None:
        pytest.skip("reference corpus ../shared not present (only in the development setup)")
    return found


@pytest.fixture(autouse=True)
def _isolated_git(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the developer's own git configuration."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Committer")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "committer@example.com")
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """An empty repository with branch ``main`` and a fixed identity."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git(repo, "init", "-q", "-b", "main")
    run_git(repo, "config", "user.name", "Test User")
    run_git(repo, "config", "user.email", "test@example.com")
    run_git(repo, "config", "commit.gpgsign", "false")
    return repo


@pytest.fixture
def http(tmp_path: Path) -> Iterator[HttpFront]:
    """git http-backend behind Python's standard library, serving ``tmp_path/srv``."""
    from helpers.git_servers import HttpFront

    (tmp_path / "srv").mkdir()
    front = HttpFront(tmp_path / "srv").start()
    yield front
    front.stop()
