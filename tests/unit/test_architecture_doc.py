"""docs/ARCHITECTURE.md names real modules, and the README links it and docs/merge-rules.md
(issue 29: a map a newcomer can trust)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "git_vcontext"
DOC = ROOT / "docs" / "ARCHITECTURE.md"

# `merging/files.py`, `codecs/tron/`, `entry.py`: a module or package under src/git_vcontext
NAMED = re.compile(r"`((?:[a-z_]+/)*[a-z_]+(?:\.py|/))`")


def _named_modules(text: str) -> set[str]:
    return {m for m in NAMED.findall(text) if not m.startswith(("tests/", "hooks/", "refs/"))}


def test_every_module_the_architecture_page_names_exists() -> None:
    named = _named_modules(DOC.read_text(encoding="utf-8"))
    assert len(named) > 60  # the page names each step by its module
    missing = sorted(m for m in named if not (PACKAGE / m).exists())
    assert missing == []


def test_the_module_check_can_fail() -> None:
    assert _named_modules("`merging/files.py` and `codecs/tron/` then `gone.py`") == {
        "merging/files.py",
        "codecs/tron/",
        "gone.py",
    }
    assert not (PACKAGE / "gone.py").exists()


def test_every_layer_of_the_layer_test_is_on_the_architecture_page() -> None:
    text = DOC.read_text(encoding="utf-8")
    source = (ROOT / "tests" / "unit" / "test_imports.py").read_text(encoding="utf-8")
    layers = source.split("LAYERS: tuple", 1)[1].split("\n)\n", 1)[0]
    units = {u for u in re.findall(r'"([a-z_]*)"', layers) if u}
    assert units, "the layer list moved: update this test"
    assert sorted(u for u in units if f"`{u}`" not in text) == []


def test_the_readme_links_the_architecture_and_the_merge_rules() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/ARCHITECTURE.md", "docs/merge-rules.md"):
        assert f"]({target})" in readme
        assert (ROOT / target).is_file()
    assert "](merge-rules.md)" in DOC.read_text(encoding="utf-8")
