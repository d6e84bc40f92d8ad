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
    "git_vcontext.merging",
    "git_vcontext.values",
    "git_vcontext.spelling",
    "git_vcontext.document",
    "git_vcontext.record",
    "git_vcontext.playbook",
    "git_vcontext.ace",
    "git_vcontext.pictures",
    "git_vcontext.resolution",
    "git_vcontext.edits",
    "git_vcontext.lineage",
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
        "import git_vcontext.entry, git_vcontext.commands.merge_driver, git_vcontext.merging.core"
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
        "import git_vcontext.merging.core; from git_vcontext.playbook import recompute_metrics"
    )
    heavy = {"click", "pygit2", "typing", "dataclasses", "inspect"}
    assert not loaded & heavy, sorted(loaded & heavy)


MCP_SDK = {"mcp", "mcp_types", "pydantic", "starlette", "uvicorn", "anyio"}


def test_driver_textconv_hook_and_other_commands_never_import_the_mcp_sdk() -> None:
    """PRODUCT.md: ``mcp`` is imported only by ``git vcontext mcp`` (its import costs ~0.6 s)."""
    loaded = _fresh_imports(
        "import git_vcontext.entry, git_vcontext.commands.merge_driver,"
        " git_vcontext.commands.textconv, git_vcontext.commands.hook, git_vcontext.cli,"
        " git_vcontext.commands.validate, git_vcontext.commands.sync,"
        " git_vcontext.commands.status, git_vcontext.commands.mcp, git_vcontext.serve.setup,"
        " git_vcontext.serve.tools"
    )
    assert not loaded & MCP_SDK, sorted(loaded & MCP_SDK)


TOML = {"tomllib", "tomlkit"}


def test_json_merges_and_validation_load_no_toml_reader_or_writer() -> None:
    """TOML (VerMAS templates) costs JSON, TRON and JSONL nothing: tomllib and tomlkit stay out,
    also when the format is found from the content (git's temporary files)."""
    loaded = _fresh_imports(
        "from git_vcontext.merging.files import merge_files; "
        "from git_vcontext.validation.files import check_bytes; "
        'b, o, t = b\'{"a": 1, "b": 1}\', b\'{"a": 2, "b": 1}\', b\'{"a": 1, "b": 2}\'; '
        "assert merge_files(b, o, t, path='x.vcontext.json').clean; "
        "assert merge_files(b, o, t).clean; "
        'e = b\'{"event_id": "e1"}\\n\'; assert merge_files(e, e + e, e).status; '
        "check_bytes(o, 'x.vcontext.json')"
    )
    assert not loaded & TOML, sorted(loaded & TOML)


def test_a_toml_merge_loads_the_writer_only_when_it_writes() -> None:
    same = _fresh_imports(
        "from git_vcontext.merging.files import merge_files; "
        "assert merge_files(b'a = 1\\n', b'a = 1\\n', b'a = 2\\n', path='t.toml').clean"
    )
    assert "tomllib" in same
    assert "tomlkit" not in same
    edited = _fresh_imports(
        "from git_vcontext.merging.files import merge_files; "
        "assert merge_files(b'a = 1\\nb = 1\\n', b'a = 2\\nb = 1\\n', b'a = 1\\nb = 2\\n',"
        " path='t.toml').clean"
    )
    assert "tomlkit" in edited
    assert not edited & {"click", "pygit2", "jsonschema", "lark"}
