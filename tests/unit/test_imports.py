"""Every module imports; the pure core stays free of I/O libraries; the driver path stays light."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import git_vcontext

MODULES = sorted(m.name for m in pkgutil.walk_packages(git_vcontext.__path__, "git_vcontext."))
PURE = (
    "git_vcontext.codecs",
    "git_vcontext.merge",
    "git_vcontext.values",
    "git_vcontext.spelling",
    "git_vcontext.document",
    "git_vcontext.record",
    "git_vcontext.playbook",
    "git_vcontext.ace",
)
FORBIDDEN_IN_PURE = ("pygit2", "click", "subprocess")


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)


def _fresh_imports(code: str) -> set[str]:
    probe = f"import sys; {code}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("name", [m for m in MODULES if m.startswith(PURE)])
def test_pure_core_imports_no_git_cli_or_subprocess(name: str) -> None:
    loaded = _fresh_imports(f"import {name}")
    assert not loaded & set(FORBIDDEN_IN_PURE), name


def test_merge_driver_path_loads_no_heavy_modules() -> None:
    """The driver runs once per file in a merge: no click, pygit2, lark, jsonschema, typing."""
    loaded = _fresh_imports(
        "import git_vcontext.entry, git_vcontext.commands.merge_driver, git_vcontext.merge.core"
    )
    heavy = {
        "click",
        "pygit2",
        "lark",
        "jsonschema",
        "deepdiff",
        "typing",
        "dataclasses",
        "inspect",
        "difflib",
        "tempfile",
        "pathlib",
    }
    assert not loaded & heavy, sorted(loaded & heavy)


def test_metrics_recomputed_by_the_merge_engine_load_no_dataclasses() -> None:
    """M10 runs inside the merge driver: ``recompute_metrics`` keeps its start-up light."""
    loaded = _fresh_imports(
        "import git_vcontext.merge.core; from git_vcontext.playbook import recompute_metrics"
    )
    heavy = {"click", "pygit2", "typing", "dataclasses", "inspect"}
    assert not loaded & heavy, sorted(loaded & heavy)
