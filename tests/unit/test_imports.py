"""The package's layers hold (docs/ARCHITECTURE.md): each module imports only its own
layer and the layers below, at module level, inside functions and for the type checker
alike, with no exception; no import circles, also behind function-level imports; no private
name crosses modules; the pure core stays free of I/O libraries; gitio is the only package
that imports pygit2 and the only one running programs but for the few listed; the paths
git runs once per file stay light."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import git_vcontext
from helpers.imports import (
    Import,
    Written,
    executed_imports,
    loads,
    module_files,
    relative,
    written_imports,
)

MODULES = sorted(m.name for m in pkgutil.walk_packages(git_vcontext.__path__, "git_vcontext."))
SOURCES = module_files()
OURS = set(SOURCES)

LAYERS: tuple[tuple[str, ...], ...] = (
    # Lowest first. Each name is a module or package right under git_vcontext ("" is the
    # package's __init__, the library API). A module imports its own package and the layers
    # below it; the names sharing a layer do not import each other.
    ("oscalls",),  # the system's calls: posix, without os where there is posix
    # the kernel
    (
        "record",
        "patterns",
        "clock",
        "faults",
        "version",
        "errors",
        "shipped",
        "jsoncodec",
        "gitvalues",
    ),
    ("spelling",),  # JSON text and numbers as written
    ("values",),  # plain JSON values
    ("keys",),  # which field identifies an element (M3)
    ("document",),  # what vContext documents mean
    ("pairing", "relocation", "filechange"),  # shared by the merge and the diff
    ("codecs",),  # text <-> data
    ("playbook",),  # the playbook view (and ACE patches)
    ("vermas",),  # VerMAS kinds and projections
    ("validation",),
    ("merging", "pictures", "edits"),
    ("diffing", "resolution"),
    ("lineage",),  # the last of the pure core
    ("fsio", "rawpatch", "boundary"),  # files, git's own patch, the error boundary
    ("gitio",),  # git: the only package that calls pygit2
    ("branches",),  # agent branches, in-process tree merges
    ("prepush",),  # the pre-push check and its verdicts
    ("setup",),  # install / uninstall
    ("sync",),  # local sync, fork, status
    ("remote",),  # sync --push
    ("conflicts",),  # listing, resolving, where a sync conflict is left
    ("workflow",),  # the use cases every front end runs alike
    ("mcp_server",),  # a front end
    ("commands",),  # the command line's use cases
    ("cli",),
    ("entry",),
    ("__main__",),
    ("",),  # the library API
)
LEVEL = {unit: n for n, layer in enumerate(LAYERS) for unit in layer}
PURE_CORE = tuple(u for layer in LAYERS[: LEVEL["fsio"]] for u in layer)


def _unit(module: str) -> str:
    """The layer's name of a module: the first name under git_vcontext ('' for the package)."""
    return module.split(".")[1] if "." in module else ""


def _package_imports() -> list[tuple[str, Written]]:
    return [(name, w) for name, path in SOURCES.items() for w in written_imports(name, path, OURS)]


def test_every_module_and_package_has_its_place_in_the_layers() -> None:
    assert {_unit(name) for name in SOURCES} == set(LEVEL)


def _breaches(imports: list[tuple[str, Written]]) -> list[str]:
    return [
        f"{w} ({_unit(name) or 'git_vcontext'} imports {_unit(w.module) or 'git_vcontext'})"
        for name, w in imports
        if _unit(w.module) != _unit(name) and LEVEL[_unit(w.module)] >= LEVEL[_unit(name)]
    ]


def test_each_module_imports_only_its_own_layer_and_the_layers_below() -> None:
    """Module level, inside functions and ``if TYPE_CHECKING:`` alike, with no exception."""
    assert _breaches(_package_imports()) == []


def test_the_layer_check_sees_imports_inside_functions_and_for_the_type_checker(
    tmp_path: Path,
) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "from .values import same\n"
        "if TYPE_CHECKING:\n    from .cli import main\n"
        "def f():\n    from .gitio import refs\n    from . import pairing\n"
    )
    name = "git_vcontext.document"  # as if document.py held this text
    found = _breaches([(name, w) for w in written_imports(name, probe, OURS)])
    assert [f.split(":")[1] for f in found] == ["4", "6", "7"]


def _import_circles() -> list[list[str]]:
    """Strongly connected modules of the imports that run (type-only ones never do)."""
    edges: dict[str, set[str]] = {name: set() for name in SOURCES}
    for name, w in _package_imports():
        if not w.type_only and w.module != name:
            edges[name].add(w.module)
    return _circles(edges)


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of nodes that reach each other (more than one node), sorted."""
    reach = {node: _reached(edges, node) for node in edges}
    groups = {
        frozenset({node, *(other for other in reach[node] if node in reach[other])})
        for node in edges
        if node in reach[node]
    }
    return sorted(sorted(group) for group in groups)


def _reached(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(edges[start])
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(edges.get(node, ()))
    return seen


def test_no_import_circles_also_behind_function_level_imports() -> None:
    assert _import_circles() == []


def test_the_circle_check_can_fail() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(edges) == [["a", "b", "c"]]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_uses(name: str, path: Path) -> list[str]:
    """``from M import _x`` of another module, and ``m._x`` on an imported module ``m``."""
    written = written_imports(name, path, OURS)
    file = relative(path)
    modules = {w.module.rpartition(".")[2] for w in written if not w.names} | _aliases(path)
    uses = [f"{w}.{n}" for w in written for n in w.names if _private(n) and w.module != name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    uses += [
        f"{file}:{node.lineno}: {node.value.id}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and _private(node.attr)
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    ]
    return uses


def _aliases(path: Path) -> set[str]:
    """Names bound by ``import ... as name`` and ``from ... import x as name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        a.asname
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
        if a.asname
    }


def test_no_private_name_is_used_across_modules() -> None:
    assert [use for name, path in SOURCES.items() for use in _private_uses(name, path)] == []


def test_the_private_name_check_can_fail(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from .json_text import _WS, loads\nfrom . import text as t\n"
        "def f():\n    return t._hidden, loads\n"
    )
    found = _private_uses("git_vcontext.codecs.probe", probe)
    assert found == ["probe.py:1: git_vcontext.codecs.json_text._WS", "probe.py:4: t._hidden"]


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports(name: str) -> None:
    importlib.import_module(name)


def _fresh_imports(code: str) -> set[str]:
    probe = f"import sys; {code}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


PURE = tuple(f"git_vcontext.{u}" for u in PURE_CORE)
FORBIDDEN_IN_PURE = ("pygit2", "click", "subprocess", "shutil", "tempfile")


@pytest.mark.parametrize("name", [m for m in MODULES if m.startswith(PURE)])
def test_pure_core_imports_no_git_cli_or_subprocess(name: str) -> None:
    loaded = _fresh_imports(f"import {name}")
    assert not loaded & set(FORBIDDEN_IN_PURE[:3]), name


@pytest.mark.parametrize("name", [m for m in SOURCES if m.startswith(PURE)])
def test_pure_core_never_imports_io_even_inside_functions(name: str) -> None:
    """The layers keep the package's I/O out of the pure core; this keeps git, the command
    line, programs and temporary files out, from inside a function too."""
    found = [str(i) for i in executed_imports(name, SOURCES[name]) if loads(i, FORBIDDEN_IN_PURE)]
    assert found == []


GITIO = "git_vcontext.gitio"
RUNS_PROGRAMS = {  # subprocess outside gitio, each with its reason
    "git_vcontext.commands.demo": "runs git and git-vcontext as a user would, in a throw-away "
    "repository with an environment of its own (GIT_DIR removed), and shows their output",
    "git_vcontext.commands.doctor": "starts the configured merge driver and pre-push hook "
    "commands to prove they run (--version, an empty push)",
    "git_vcontext.commands.mergetool": "opens the person's editor (GIT_EDITOR) on a value",
    "git_vcontext.setup.server": "install --server, run by root in a repository another user "
    "owns, runs itself as that user (whose pushes start the hook it installs)",
    "git_vcontext.rawpatch": "git's own patch for git diff into a file or pipe (git diff "
    "--no-index of two copies), on the external diff's fast path that loads no gitio",
}


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


def _pygit2_api(tmp: Path) -> tuple[set[str], set[str]]:
    """What pygit2 offers: a Repository's attributes (methods, properties and the collections
    it sets on each instance), and the methods of its other objects whose names neither a
    builtin type, ``Path`` nor this package uses."""
    import pygit2

    repo = pygit2.init_repository(str(tmp))
    kinds = (pygit2.Index, pygit2.Commit, pygit2.Tree, pygit2.Blob, pygit2.Reference,
             pygit2.Object, pygit2.Odb, pygit2.Walker, pygit2.Config, pygit2.TreeBuilder,
             pygit2.Diff, pygit2.Patch, pygit2.Branch, pygit2.Remote, type(repo.references),
             type(repo.branches), type(repo.remotes))  # fmt: skip
    methods = {n for kind in kinds for n in dir(kind) if callable(getattr(kind, n, None))}
    common = {n for kind in (dict, list, str, bytes, set, tuple, int, Path) for n in dir(kind)}
    ours = {  # the package's own names, but gitio's, which are named after what they wrap
        node.name
        for name, path in SOURCES.items()
        if not name.startswith(GITIO)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    api = {name for name in dir(repo) if not name.startswith("_")}
    return api, {n for n in methods - common - ours if not n.startswith("_")}


def _is_repo(node: ast.expr) -> bool:
    """A Repository, as every module names one: ``repo``, ``self.repo``, ``ctx.repo``."""
    return (isinstance(node, ast.Name) and node.id == "repo") or (
        isinstance(node, ast.Attribute) and node.attr == "repo"
    )


def _pygit2_calls(path: Path, repo_api: set[str], methods: set[str]) -> list[str]:
    """Attributes of a Repository used (``repo.index``, ``repo.create_commit(...)``),
    ``repo[...]``, and calls of other pygit2 objects' methods (``index.write_tree(...)``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and _is_repo(node.value) and node.attr in repo_api:
            found.append(f"{relative(path)}:{node.lineno}: repo.{node.attr}")
        elif isinstance(node, ast.Subscript) and _is_repo(node.value):
            found.append(f"{relative(path)}:{node.lineno}: repo[...]")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods
        ):
            found.append(f"{relative(path)}:{node.lineno}: .{node.func.attr}(...)")
    return found


def test_only_gitio_calls_pygit2(tmp_path: Path) -> None:
    """Not only the imports: outside gitio nothing calls a Repository's methods or reads
    its index, references, config, branches or paths, and nothing calls what only pygit2's
    objects have (``write_tree``, ``peel``, ``read_raw``, …); gitio's functions do."""
    repo_api, methods = _pygit2_api(tmp_path)
    found = [
        call
        for name, path in SOURCES.items()
        if not (name == GITIO or name.startswith(GITIO + "."))
        for call in _pygit2_calls(path, repo_api, methods)
    ]
    assert found == []


def test_the_pygit2_call_check_can_fail(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(repo, index, ctx):\n"
        "    repo.index.read()\n"
        "    ctx.repo.create_commit(None, a, a, 'm', t, [])\n"
        "    blob = repo[oid]\n"
        "    return index.write_tree(repo), repo.top, ctx.name\n"
    )
    repo_api, methods = _pygit2_api(tmp_path / "repo")
    found = [f.split(": ", 1)[1] for f in _pygit2_calls(probe, repo_api, methods)]
    assert sorted(found) == [".write_tree(...)", "repo.create_commit", "repo.index", "repo[...]"]


def test_only_gitio_and_the_listed_commands_run_programs() -> None:
    found = {i.file for i in _outside_gitio(("subprocess",))}
    listed = {SOURCES[name].relative_to(SOURCES["git_vcontext"].parent).as_posix()
              for name in RUNS_PROGRAMS}  # fmt: skip
    assert found == listed


def test_the_import_scan_sees_function_level_imports_and_skips_type_checking_blocks() -> None:
    """The scans above can fail: gitio's open_repo imports pygit2 inside the function, and
    branches/agents.py names pygit2's Repository only for the type checker."""
    opened = executed_imports("git_vcontext.gitio", SOURCES["git_vcontext.gitio"])
    assert any(i.module == "pygit2" for i in opened)
    agents = "git_vcontext.branches.agents"
    assert "from pygit2 import" in SOURCES[agents].read_text()
    assert not any(loads(i, ("pygit2",)) for i in executed_imports(agents, SOURCES[agents]))
    assert any(
        i.module == "git_vcontext.gitio.commits" for i in executed_imports(agents, SOURCES[agents])
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
