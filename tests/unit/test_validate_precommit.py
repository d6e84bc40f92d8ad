"""``.pre-commit-hooks.yaml`` offers vcontext-validate over the same files install declares."""

from __future__ import annotations

import re

import pytest

from git_vcontext.document import matches_file_patterns
from helpers.run import REPO_ROOT

HOOKS = REPO_ROOT / ".pre-commit-hooks.yaml"


def _hook(hook_id: str) -> dict[str, str]:
    if not HOOKS.exists():
        pytest.skip("needs the source checkout")
    blocks = HOOKS.read_text("utf-8").split("\n- ")
    block = next(b for b in blocks if re.search(rf"id: {re.escape(hook_id)}\n", b + "\n"))
    fields = re.findall(r"^\s*([a-z_]+): (.+)$", block, re.MULTILINE)
    return {k: v.strip().strip("'") for k, v in fields}


@pytest.mark.parametrize(
    "path",
    [
        "todo.vcontext.json",
        "a/b/plan.vcontext.tron",
        ".vcontext/notes.json",
        "x.vbrief.json",
        ".work/events.jsonl",
        "a/.vcontext/notes.json",
        "a/.work/events.jsonl",
        "package.json",
        "x.vbrief.tron",
        "vcontext.json",
        ".work/templates/build.toml",
        ".work/templates/a/b.toml",
        ".work/processes/p1.json",
        ".work/evidence/e1.json",
        "src/.work/evidence/e1.json",
    ],
)
def test_validate_hook_selects_the_files_install_declares(path: str) -> None:
    hook = _hook("vcontext-validate")
    assert hook["entry"] == "git-vcontext validate"
    assert bool(re.search(hook["files"], path)) == matches_file_patterns(path)
