"""The built wheel ships hooks/ and schemas/ inside the package, found via importlib.resources."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from git_vcontext import shipped as resources
from helpers.run import REPO_ROOT


def test_resources_are_found_from_the_package() -> None:
    assert resources.hooks_dir().joinpath("pre-push").is_file()
    assert resources.schemas_dir().is_dir()


@pytest.mark.slow
def test_an_installed_wheel_not_the_checkout_contains_hooks_and_schemas(tmp_path: Path) -> None:
    if not (REPO_ROOT / "pyproject.toml").exists():
        pytest.skip("needs the source checkout to build a wheel")
    src = tmp_path / "src"
    shutil.copytree(
        REPO_ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "*.egg-info", ".venv", "__pycache__", "build", "dist"
        ),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 and "No module named" in proc.stderr and "hatchling" in proc.stderr:
        pytest.skip("hatchling is not installed in this environment")
    assert proc.returncode == 0, proc.stderr
    wheel = next((tmp_path / "dist").glob("git_vcontext-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "git_vcontext/hooks/pre-push" in names
    assert any(n.startswith("git_vcontext/schemas/") for n in names)
    assert any(n.endswith(".data/data/share/man/man1/git-vcontext.1") for n in names)
    assert any(n.endswith(".data/scripts/git-vcontext") for n in names)  # ours (issue 32)
    # installed into a fresh target, the package finds them without the checkout
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
    )
    probe = (
        "import git_vcontext.shipped as r, sys; "
        "print(r.hooks_dir().joinpath('pre-push').is_file(), r.schemas_dir())"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target)},
        cwd=tmp_path,
        check=True,
    ).stdout
    assert out.startswith("True")
    assert str(target) in out
    # the console script is ours: the installer gave it this Python, and it imports no re
    # (pip's template for [project.scripts] does: ~3 ms of every process git starts, issue 32)
    script = target / "bin" / "git-vcontext"
    lines = script.read_text().splitlines()
    assert lines[0] == f"#!{sys.executable}"
    assert "import re" not in lines
    version = subprocess.run(
        [str(script), "--version"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
        check=True,
    ).stdout
    assert "git-vcontext" in version


def test_the_manual_page_names_every_command_and_the_version() -> None:
    """`git vcontext --help` opens man/git-vcontext.1 (git turns it into `git help
    vcontext`): it must not fall behind the command line."""
    import re

    from git_vcontext import __version__
    from git_vcontext.cli import cli

    page = REPO_ROOT / "man" / "git-vcontext.1"
    if not page.exists():
        pytest.skip("needs the source checkout (the page is installed under share/man)")
    text = page.read_text()
    assert f'"git-vcontext {__version__}"' in text.splitlines()[0]
    names = re.findall(r"^\.B ([a-z\\-]+)", text, re.MULTILINE)
    described = {name.replace("\\-", "-") for name in names}
    assert set(cli.commands) <= described, set(cli.commands) - described
