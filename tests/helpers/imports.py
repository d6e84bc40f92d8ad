"""The imports a module of the package writes, read from its source (AST): at module level
and inside functions, relative imports made absolute. ``executed_imports`` leaves out
``if TYPE_CHECKING:`` blocks (a type checker reads them, the interpreter never runs them);
``written_imports`` keeps them, marked, and names the module each import reaches."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import git_vcontext

PACKAGE_DIR = Path(git_vcontext.__file__).parent


@dataclass(frozen=True)
class Import:
    """One executed import: the module it loads and where it is written."""

    module: str  # absolute: "pygit2", "git_vcontext.fsio", "subprocess"
    file: str  # relative to the package folder: "sync/fork.py"
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.module}"


def module_files() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def executed_imports(name: str, path: Path) -> list[Import]:
    """The imports ``path`` (module ``name``) runs, wherever they are written."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    rel = path.relative_to(PACKAGE_DIR).as_posix()
    return [Import(module, rel, line) for module, line in _walk(tree.body, package)]


@dataclass(frozen=True)
class Written:
    """One import statement's target in the package: the module it reaches (a submodule when
    ``from P import m`` names one, else the module named), the names it binds from it, and
    whether it only serves the type checker or sits inside a function."""

    module: str
    names: tuple[str, ...]
    file: str
    line: int
    type_only: bool
    in_function: bool

    def __str__(self) -> str:
        where = " (type only)" if self.type_only else " (in a function)" if self.in_function else ""
        return f"{self.file}:{self.line}: {self.module}{where}"


def written_imports(name: str, path: Path, modules: set[str]) -> list[Written]:
    """Every import of ``modules`` (the package's) that ``path`` (module ``name``) writes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    rel = (
        path.relative_to(PACKAGE_DIR).as_posix() if path.is_relative_to(PACKAGE_DIR) else path.name
    )
    out: list[Written] = []
    for node, type_only, in_function in _statements(tree.body, False, False):
        for module, names in _targets(node, package, modules):
            out.append(Written(module, names, rel, node.lineno, type_only, in_function))
    return out


def relative(path: Path) -> str:
    """A module's file relative to the package folder (a file elsewhere: its name)."""
    return (
        path.relative_to(PACKAGE_DIR).as_posix() if path.is_relative_to(PACKAGE_DIR) else path.name
    )


def _statements(
    body: list[ast.stmt], type_only: bool, in_function: bool
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, type_only, in_function
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _statements(node.body, True, in_function)
            yield from _statements(node.orelse, type_only, in_function)
            continue
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for block in _inner_bodies(node):
            yield from _statements(block, type_only, inner)


def _targets(
    node: ast.Import | ast.ImportFrom, package: str, modules: set[str]
) -> Iterator[tuple[str, tuple[str, ...]]]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in modules:
                yield alias.name, ()
        return
    base = _absolute(node, package)
    if base not in modules:
        return
    plain = tuple(a.name for a in node.names if f"{base}.{a.name}" not in modules)
    if plain:
        yield base, plain
    for alias in node.names:
        if f"{base}.{alias.name}" in modules:
            yield f"{base}.{alias.name}", ()


def _walk(body: list[ast.stmt], package: str) -> Iterator[tuple[str, int]]:
    for node in body:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _walk(node.orelse, package)  # the else branch does run
            continue
        yield from _imports_of(node, package)
        for inner in _inner_bodies(node):
            yield from _walk(inner, package)


def _imports_of(node: ast.stmt, package: str) -> Iterator[tuple[str, int]]:
    """The modules an import statement may load (nothing for another statement)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, node.lineno
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(node, package)
        yield base, node.lineno
        for alias in node.names:  # ``from . import x`` may load the submodule x
            yield f"{base}.{alias.name}", node.lineno


def _inner_bodies(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists inside a statement: functions, classes, if, for, with, try, match."""
    for field in ("body", "orelse", "finalbody"):
        inner = getattr(node, field, None)
        if isinstance(inner, list):
            yield inner
    for handler in getattr(node, "handlers", []):
        yield handler.body
    for case in getattr(node, "cases", []):
        yield case.body


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def loads(found: Import, modules: tuple[str, ...]) -> bool:
    """Whether the import loads one of ``modules`` (a module or anything inside it)."""
    return any(found.module == m or found.module.startswith(m + ".") for m in modules)
