"""Every module imports; the pure core stays free of I/O libraries, also in its function-level
imports; gitio is the only package that imports pygit2 and the only one running programs but
for the few listed; the driver path stays light."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

import git_vcontext
from helpers.imports import Import, executed_imports, loads, module_files

MODULES = sorted(m.name for m in pkgutil.walk_packages(git_vcontext.__path__, "git_vcontext."))
PURE = (  # STYLE.md: "Pure core (codecs, merge, diff, playbook, validate) has no pygit2, ..."
    "git_vcontext.codecs",
    "git_vcontext.merging",
    "git_vcontext.diffing",
    "git_vcontext.validation",
    "git_vcontext.values",
    "git_vcontext.spelling",
    "git_vcontext.document",
    "git_vcontext.record",
    "git_vcontext.playbook",
    "git_vcontext.playbook.ace",
    "git_vcontext.pictures",
    "git_vcontext.resolution",
    "git_vcontext.edits",
    "git_vcontext.lineage",
)
FORBIDDEN_IN_PURE = ("pygit2", "click", "subprocess")
IO_OF_THE_PACKAGE = (  # what the pure core must not reach even from inside a function
    "shutil",
    "tempfile",
    "git_vcontext.gitio",
    "git_vcontext.fsio",
    "git_vcontext.branches",
    "git_vcontext.prepush",
    "git_vcontext.setup",
    "git_vcontext.sync",
    "git_vcontext.remote",
    "git_vcontext.conflicts",
    "git_vcontext.workflow",
    "git_vcontext.commands",
    "git_vcontext.cli",
    "git_vcontext.mcp_server",
)
GITIO = "git_vcontext.gitio"
RUNS_PROGRAMS = {  # subprocess outside gitio, each with its reason
    "git_vcontext.commands.demo": "runs git and git-vcontext as a user would, in a throw-away "
    "repository with an environment of its own (GIT_DIR removed), and shows their output",
    "git_vcontext.commands.doctor": "starts the configured merge driver and pre-push hook "
    "commands to prove they run (--version, an empty push)",
    "git_vcontext.commands.mergetool": "opens the person's editor (GIT_EDITOR) on a value",
    "git_vcontext.rawpatch": "git's own patch for git diff into a file or pipe (git diff "
    "--no-index of two copies), on the external diff's fast path that loads no gitio",
}
SOURCES = module_files()


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


@pytest.mark.parametrize("name", [m for m in SOURCES if m.startswith(PURE)])
def test_pure_core_never_imports_io_even_inside_functions(name: str) -> None:
    found = [
        str(i)
        for i in executed_imports(name, SOURCES[name])
        if loads(i, FORBIDDEN_IN_PURE + IO_OF_THE_PACKAGE)
    ]
    assert found == []


def _outside_gitio(modules: tuple[str, ...]) -> list[Import]:
    return [
        i
        for name, path in SOURCES.items()
        if not (name == GITIO or name.startswith(GITIO + "."))
        for i in executed_imports(name, path)
        if loads(i, modules)
    ]


def test_only_gitio_imports_pygit2_at_run_time() -> None:
    """Type-only imports (``if TYPE_CHECKING:``) elsewhere are fine: they never run."""
    assert [str(i) for i in _outside_gitio(("pygit2",))] == []


def test_only_gitio_and_the_listed_commands_run_programs() -> None:
    found = {i.file for i in _outside_gitio(("subprocess",))}
    listed = {SOURCES[name].relative_to(SOURCES["git_vcontext"].parent).as_posix()
              for name in RUNS_PROGRAMS}  # fmt: skip
    assert found == listed


def test_the_import_scan_sees_function_level_imports_and_skips_type_checking_blocks() -> None:
    """The scans above can fail: gitio's open_repo imports pygit2 inside the function, and
    branches/agents.py names pygit2's Signature only for the type checker."""
    opened = executed_imports("git_vcontext.gitio", SOURCES["git_vcontext.gitio"])
    assert any(i.module == "pygit2" for i in opened)
    agents = "git_vcontext.branches.agents"
    assert "from pygit2 import" in SOURCES[agents].read_text()
    assert not any(loads(i, ("pygit2",)) for i in executed_imports(agents, SOURCES[agents]))
    assert any(
        i.module == "git_vcontext.gitio.objects" for i in executed_imports(agents, SOURCES[agents])
    )


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


DRIVER_MERGES = """
import json
from git_vcontext.merging.files import merge_files
def doc(a, b):
    notes = [{"text": a, "n": 1}, {"text": b, "n": 2}]
    item = {"id": "t1", "title": "A", "status": "pending", "notes": notes}
    return json.dumps({"vContextInfo": {"version": "0.4"}, "todoList": {"items": [item]}}).encode()
base, ours, theirs = doc("a", "b"), doc("a!", "b"), doc("a", "b!")
assert merge_files(base, ours, theirs, path="t.vcontext.json").clean  # M4: replaced objects
done = base.replace(b'"pending"', b'"completed"')
blocked = base.replace(b'"pending"', b'"blocked"')
for structured in (False, True):  # M15: markers, and a ConflictResolution
    assert not merge_files(base, done, blocked, path="t.vcontext.json", structured=structured).clean
"""


def test_m4_and_m15_merges_in_the_driver_load_no_heavy_modules() -> None:
    """Not only importing the driver: merging replaced objects without ids (M4 alignment,
    pairing) and writing a conflict as markers or as a ConflictResolution (M15) load no
    typing, dataclasses or other heavy module either."""
    loaded = _fresh_imports("exec(" + repr(DRIVER_MERGES) + ")")
    heavy = {"click", "pygit2", "lark", "jsonschema", "typing", "dataclasses", "inspect"}
    assert not loaded & heavy, sorted(loaded & heavy)


def test_a_clean_json_merge_in_the_driver_loads_no_contextlib_importlib_or_warnings() -> None:
    """Measured on the driver's path (tests/bench/bench_merge_driver.py): contextlib and
    importlib (with warnings) cost ~0.9 ms of a ~30 ms merge; the merge needs neither."""
    loaded = _fresh_imports("exec(" + repr(DRIVER_MERGES) + ")")
    assert not loaded & {"contextlib", "importlib", "warnings"}, sorted(loaded)


def test_the_pre_push_hooks_cache_lookup_loads_no_push_checker() -> None:
    """A push ``sync`` checked already is answered from the cache: the key and the cache,
    not the push checker (pygit2, dataclasses, subprocess)."""
    loaded = _fresh_imports(
        "import git_vcontext.commands.hook as hook; hook._checked_before('origin', 'a b c d')"
    )
    heavy = {"click", "pygit2", "dataclasses", "inspect", "subprocess"}
    assert not loaded & heavy, sorted(loaded & heavy)
    assert "git_vcontext.prepush.verdicts" not in loaded


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
        " git_vcontext.commands.status, git_vcontext.commands.mcp,"
        " git_vcontext.mcp_server.startup, git_vcontext.mcp_server.tools.dispatch"
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
