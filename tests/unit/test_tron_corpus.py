"""The TRON of the seed specs and the reference corpus: it all parses and matches its JSON twins."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from git_vcontext.codecs import tron
from git_vcontext.errors import ParseError
from git_vcontext.values import same

pytestmark = pytest.mark.corpus

SEEDS = ("000_7ede1e30953cdd76.txt", "001_06bbcbcb14e488a8.txt", "002_6b1569ca22eebdc7.txt")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
Adjust = Callable[[Any], Any]


def _drop(path: str, key: str) -> Adjust:
    """Remove ``key`` from every object found at ``path`` (dotted; [] = each element)."""

    def adjust(value: Any) -> Any:
        value = json.loads(json.dumps(value))
        nodes = [value]
        for part in path.split(".") if path else []:
            step = [n[part[:-2]] if part.endswith("[]") else n[part] for n in nodes]
            nodes = [x for s in step for x in s] if part.endswith("[]") else step
        for node in nodes:
            node.pop(key, None)
        return value

    return adjust


def _same_value(value: Any) -> Any:
    return value


_NAMESPACED = "vContext-alternative-namespaced__vContext-Alternative-Namespaced-Extension-Fields-"
# Examples whose JSON twin differs in substance: (reason, adjust TRON side, adjust JSON side).
# Everything else in them is still compared.
KNOWN_DIFFERENCES: dict[str, tuple[str, Adjust, Adjust]] = {
    "seed 000 A3 Playbook": (
        "the TRON entries carry `text`, the JSON twin `narrative` (a map) instead",
        _drop("playbook.items[]", "text"),
        _drop("playbook.items[]", "narrative"),
    ),
    "README__Appendix-A-Complete-Examples-All-Extensions-A3-Playbook-Long": (
        "the spec's A3 example again: `text` in TRON, `narrative` in JSON",
        _drop("playbook.items[]", "text"),
        _drop("playbook.items[]", "narrative"),
    ),
    "seed 001 playbook embedded in a Plan": (
        "playbook.updated is 08:00 in the TRON, 09:20 in the JSON",
        _drop("plan.playbook", "updated"),
        _drop("plan.playbook", "updated"),
    ),
    "warp.vcontext": (
        "the JSON twin moved on to the event-log playbook; the TRON kept the old items",
        _drop("", "playbook"),
        _drop("", "playbook"),
    ),
    "history__warp.vbrief": (
        "as warp.vcontext: the JSON became an event log, the TRON did not",
        _drop("", "playbook"),
        _drop("", "playbook"),
    ),
}
for _which in ("Current-App", "Proposed-Ap"):
    KNOWN_DIFFERENCES[f"{_NAMESPACED}{_which}"] = (
        "the TRON shows only the vContextInfo value, as a standard-TRON root",
        _same_value,
        lambda j: j["vContextInfo"],
    )
# TRON examples that are not TRON at all.
BROKEN_TRON = {
    "vContext-extension-claude__vContext-Extension-Proposal-Claude-AI-Integration-Token-Effi": (
        "a `[...48 more items...]` placeholder inside the array"
    ),
}
# JSON twins that are not JSON: nothing to compare against.
BROKEN_TWINS = {
    "history-spec-v0-2__Extension-4-Hierarchical-Structures-Example": "missing comma in the JSON",
    "history-spec-v0-3__Extension-4-Hierarchical-Structures-Example": "missing comma in the JSON",
    "vContext-extension-common__Extension-4-Hierarchical-Structures-Example": "missing comma",
}
# Seed TRON blocks without a JSON twin next to them.
NO_TWIN = {"seed 002 ACE playbook": "the JSON block after it is an AcePatch, another document"}
SEED_NAMES = {
    ("000", 7): "seed 000 A3 Playbook",
    ("001", 1): "seed 001 playbook embedded in a Plan",
    ("002", 1): "seed 002 ACE playbook",
}


def _seed_examples(shared: Path) -> list[tuple[str, str, str | None]]:
    """(name, TRON text, JSON twin) for every ```tron block of the seeds."""
    found = []
    for seed in SEEDS:
        text = (shared / "seeds" / seed).read_text(encoding="utf-8")
        blocks = [(m.group(1), m.start(), m.end(), m.group(2)) for m in _FENCE.finditer(text)]
        tron_blocks = [i for i, b in enumerate(blocks) if b[0] == "tron"]
        for n, i in enumerate(tron_blocks, 1):
            name = SEED_NAMES.get((seed[:3], n), f"seed {seed[:3]} tron block {n}")
            found.append((name, blocks[i][3], _twin_of(text, blocks, i)))
    return found


def _twin_of(text: str, blocks: list[tuple[str, int, int, str]], i: int) -> str | None:
    """The ```json block right after (else right before) a ```tron block: its twin."""
    for j in (i + 1, i - 1):
        if 0 <= j < len(blocks) and blocks[j][0] == "json":
            gap = text[min(blocks[i][2], blocks[j][2]) : max(blocks[i][1], blocks[j][1])]
            if gap.count("\n") <= 8:
                return blocks[j][3]
    return None


def _compare(name: str, data: Any, twin: Any) -> None:
    adjust_tron: Callable[[Any], Any] = _same_value
    adjust_json: Callable[[Any], Any] = _same_value
    if name in KNOWN_DIFFERENCES:
        _, adjust_tron, adjust_json = KNOWN_DIFFERENCES[name]
        assert not same(data, twin), f"{name} is listed as different but matches: update the list"
    data, twin = adjust_tron(data), adjust_json(twin)
    if not same(data, twin):  # the dialect reads positional null as absent: null-vs-absent aside
        data, twin = _without_nulls(data), _without_nulls(twin)
    assert same(data, twin), name


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def test_every_seed_tron_example_parses_and_matches_its_json(shared_dir: Path) -> None:
    examples = _seed_examples(shared_dir)
    assert len(examples) == 9
    for name, text, twin in examples:
        doc = tron.loads(text)
        assert doc.dialect == "vcontext", name
        if twin is None or name in NO_TWIN:
            assert name in NO_TWIN or twin is None, name
            continue
        _compare(name, doc.data, json.loads(twin))


def _corpus_tron(shared: Path) -> list[Path]:
    return sorted((shared / "corpus").rglob("*.tron"))


def test_every_corpus_tron_file_parses(shared_dir: Path) -> None:
    files = _corpus_tron(shared_dir)
    assert len(files) > 100
    for path in files:
        raw = path.read_bytes()
        if path.stem in BROKEN_TRON:
            with pytest.raises(ParseError):
                tron.loads(raw)
            continue
        doc = tron.loads(raw)
        assert doc.render(doc.data) == raw.decode("utf-8"), path


@pytest.mark.parametrize("folder", ["spec-embedded/v0.4-final-ce9510c", "docs"])
def test_corpus_tron_matches_its_json_twin(shared_dir: Path, folder: str) -> None:
    compared = 0
    for path in sorted((shared_dir / "corpus" / folder).glob("*.tron")):
        twin = path.with_suffix(".json")
        if not twin.exists() or path.stem in BROKEN_TRON or path.stem in BROKEN_TWINS:
            continue
        _compare(path.stem, tron.loads(path.read_bytes()).data, json.loads(twin.read_bytes()))
        compared += 1
    assert compared >= 4


def _corpus_json(shared: Path) -> list[tuple[Path, Any]]:
    values = []
    for path in sorted((shared / "corpus").rglob("*.json")):
        try:
            values.append((path, json.loads(path.read_bytes())))
        except ValueError:  # the corpus keeps some invalid JSON on purpose
            continue
    return values


@pytest.mark.parametrize("flavor", ["vcontext", "standard"])
def test_corpus_json_to_tron_to_json_is_lossless(shared_dir: Path, flavor: Any) -> None:
    values = _corpus_json(shared_dir)
    assert len(values) > 500
    for path, value in values:
        back = tron.loads(tron.dumps(value, flavor)).data
        assert json.dumps(back) == json.dumps(value), path


def test_vcontext_flavour_writes_the_spec_s_own_classes(shared_dir: Path) -> None:
    """The spec's A1 JSON comes out with the header of the spec's A1 TRON (modulo order)."""
    base = shared_dir / "corpus/spec-embedded/v0.4-final-ce9510c"
    name = "README__Appendix-A-Complete-Examples-All-Extensions-A1-TodoList-Oper"
    ours = tron.loads(tron.dumps(json.loads((base / f"{name}.json").read_bytes())))
    spec = tron.loads((base / f"{name}.tron").read_bytes())
    assert list(ours.classes) == list(spec.classes)
    for cls, props in spec.classes.items():
        assert sorted(ours.classes[cls]) == sorted(props), cls


def test_render_of_edited_corpus_documents_keeps_their_headers(shared_dir: Path) -> None:
    for path in _corpus_tron(shared_dir):
        if path.stem in BROKEN_TRON:
            continue
        doc = tron.loads(path.read_bytes())
        new = json.loads(json.dumps(doc.data))
        if isinstance(new, dict):
            new["x-note"] = {"added": "by a test"}
        text = doc.render(new)
        assert text.startswith(doc.header), path
        assert json.dumps(tron.loads(text).data) == json.dumps(new), path
