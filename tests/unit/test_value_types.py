"""One idiom per kind of value (README, Development): an immutable value is a ``@record``
class; ``@dataclass(frozen=True)`` only where a field needs ``field(default_factory=…)``
or the class inherits fields, which ``@record`` does not do."""

from __future__ import annotations

import ast
from pathlib import Path

import git_vcontext

SRC = Path(git_vcontext.__file__).parent


def frozen_dataclasses_that_could_be_records(root: Path) -> list[str]:
    """``file:line Class`` for each frozen dataclass with no field factory and no bases."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.ClassDef) or node.bases:
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if "dataclass(frozen=True)" not in decorators:
                continue
            calls = {ast.unparse(n.func) for n in ast.walk(node) if isinstance(n, ast.Call)}
            if "field" not in calls:
                found.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    return found


def test_immutable_values_are_records_unless_a_field_needs_a_factory() -> None:
    assert frozen_dataclasses_that_could_be_records(SRC) == []


def test_the_value_type_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from dataclasses import dataclass, field\n\n"
        "@dataclass(frozen=True)\nclass Plain:\n    a: int\n\n"
        "@dataclass(frozen=True)\nclass Factory:\n    a: list[int] = field(default_factory=list)\n"
    )
    assert frozen_dataclasses_that_could_be_records(tmp_path) == ["m.py:4 Plain"]
