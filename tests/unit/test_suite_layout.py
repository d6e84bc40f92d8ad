"""How the suite is laid out (issue 18): shared helpers come from tests/helpers only."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers.run import REPO_ROOT

TESTS = REPO_ROOT / "tests"


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_test_imports_conftest_or_another_test_module() -> None:
    wrong = {
        f"{path.relative_to(TESTS)}: {name}"
        for path in TESTS.rglob("*.py")
        for name in _imported(path)
        if name.split(".")[0] == "conftest" or name.split(".")[-1].startswith("test_")
    }
    assert not wrong, sorted(wrong)


def test_the_check_sees_a_conftest_import(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text("from conftest import run_git\nimport test_other\n")
    assert _imported(bad) == {"conftest", "test_other"}
