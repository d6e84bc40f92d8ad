"""The console script finds the package's own modules itself (issue 32: entry._OwnModules).

The processes git starts once per file load 40-50 of our modules; ``entry`` puts a
finder for them first on ``sys.meta_path`` that lists each folder once and reads an
up-to-date bytecode cache after one stat of its source. What is imported, from which file, and
whether a changed source is compiled again must stay what importlib's path finder
gives: each test runs a fresh interpreter on a copy of the package (its caches written,
then a source changed) and compares with a plain import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import git_vcontext
from git_vcontext import entry

PACKAGE = Path(git_vcontext.__file__).parent

# Imports a few modules (a package, a module, a nested package's module) with the finder
# first or without it, and prints what each came from.
PROBE = """
import importlib, sys
use = sys.argv[1] == "finder"
from git_vcontext import entry
if use:
    entry.own_modules_first()
for name in ("git_vcontext.merging.files", "git_vcontext.codecs.tron", "git_vcontext.clock"):
    m = importlib.import_module(name)
    spec = m.__spec__
    print(name, type(spec.loader).__name__, m.__file__, m.__cached__,
          getattr(m, "__path__", None), spec.parent, getattr(m, "MARK", None))
"""


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(PACKAGE, root / "git_vcontext", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _probe(root: Path, mode: str) -> list[list[str]]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], env=env, capture_output=True, text=True, check=True
    ).stdout
    return [line.split(" ") for line in out.splitlines()]


def test_issue32_own_modules_come_from_the_files_the_path_finder_gives(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    plain = _probe(root, "plain")  # writes the caches
    found = _probe(root, "finder")
    assert [row[1] for row in found] == ["_OwnLoader"] * 3
    assert [row[1] for row in plain] == ["SourceFileLoader"] * 3
    assert [row[:1] + row[2:] for row in found] == [row[:1] + row[2:] for row in plain]
    assert str(root) in found[0][2]


def test_issue32_a_changed_source_is_compiled_again_not_read_from_its_stale_cache(
    tmp_path: Path,
) -> None:
    root = _copy(tmp_path)
    _probe(root, "finder")  # caches written (by importlib's own loader: none was there)
    clock = root / "git_vcontext" / "clock.py"
    stat = clock.stat()
    clock.write_text(clock.read_text() + "MARK = 1\n")
    os.utime(clock, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert [row[-1] for row in _probe(root, "finder")] == ["None", "None", "1"]
    assert [row[-1] for row in _probe(root, "plain")] == ["None", "None", "1"]


def test_issue32_folders_with_compiled_modules_and_data_folders_go_to_the_path_finder(
    tmp_path: Path,
) -> None:
    finder = entry._OwnModules()
    (tmp_path / "plain.py").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "data").mkdir()  # a folder without __init__.py: a namespace package at most
    prefix = "git_vcontext."
    spec = finder.find_spec(prefix + "plain", [str(tmp_path)])
    assert spec is not None
    assert spec.origin == str(tmp_path / "plain.py")
    package = finder.find_spec(prefix + "pkg", [str(tmp_path)])
    assert package is not None
    assert package.submodule_search_locations == [str(tmp_path / "pkg")]
    assert finder.find_spec(prefix + "data", [str(tmp_path)]) is None
    assert finder.find_spec(prefix + "absent", [str(tmp_path)]) is None
    assert finder.find_spec("elsewhere.plain", [str(tmp_path)]) is None
    assert finder.find_spec(prefix + "plain", None) is None
    compiled = tmp_path / "compiled"
    compiled.mkdir()
    (compiled / "plain.py").write_text("")
    (compiled / f"fast{EXTENSION_SUFFIXES[0]}").write_text("")
    assert entry._OwnModules().find_spec(prefix + "plain", [str(compiled)]) is None


def test_issue32_a_moved_tree_names_its_own_files_in_code_objects(tmp_path: Path) -> None:
    """Caches written in one place and the tree moved with its times kept (``cp -a``): a
    traceback names the file where it is now, as importlib's loader makes it."""
    first = _copy(tmp_path / "a")
    _probe(first, "plain")  # writes the caches
    moved = tmp_path / "b" / "src"
    shutil.copytree(first, moved)  # copy2: mtimes kept, so the caches are up to date
    probe = (
        "import sys\nfrom git_vcontext import entry\nentry.own_modules_first()\n"
        "import git_vcontext.clock as m\n"
        "print(type(m.__spec__.loader).__name__, m.__spec__.loader.get_code(m.__name__)"
        ".co_filename)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(moved)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["_OwnLoader", str(moved / "git_vcontext" / "clock.py")]
