"""The diff core is pure; the per-file paths git runs (textconv, external diff) stay light."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import git_vcontext.diffing

DIFF_MODULES = sorted(
    m.name for m in pkgutil.walk_packages(git_vcontext.diffing.__path__, "git_vcontext.diffing.")
)
HEAVY = {"click", "pygit2", "lark", "jsonschema", "deepdiff", "typing", "dataclasses",
         "inspect", "difflib", "tempfile", "pathlib", "subprocess"}  # fmt: skip


def _fresh_imports(code: str) -> set[str]:
    probe = f"import sys; {code}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("name", ["git_vcontext.diffing", *DIFF_MODULES])
def test_diff_core_imports_no_git_cli_or_subprocess(name: str) -> None:
    assert not _fresh_imports(f"import {name}") & {"pygit2", "click", "subprocess"}, name


def test_textconv_and_external_diff_paths_load_no_heavy_modules() -> None:
    loaded = _fresh_imports(
        "import git_vcontext.entry, git_vcontext.commands.textconv, git_vcontext.diffing.textconv,"
        " git_vcontext.commands.diff, git_vcontext.diffing.files, git_vcontext.diffing.core,"
        " git_vcontext.diffing.arrays, git_vcontext.diffing.report"
    )
    assert not loaded & HEAVY, sorted(loaded & HEAVY)


def test_running_textconv_loads_neither_click_nor_the_diff_engine(tmp_path: Path) -> None:
    doc = tmp_path / "t.vcontext.json"
    doc.write_text('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}')
    loaded = _fresh_imports(
        "import os, git_vcontext.entry as e; sys.stdout = open(os.devnull, 'w');"
        f" code = e.main(['textconv', {str(doc)!r}]); sys.stdout = sys.__stdout__;"
        " assert code == 0"
    )
    assert not loaded & (HEAVY | {"git_vcontext.diffing.core", "git_vcontext.cli", "mcp"})
