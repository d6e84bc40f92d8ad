"""The reference corpus: the spec's v0.4 examples validate; what does not is listed, with why.

Skips cleanly when ../shared/corpus is absent (the corpus is not part of the project).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from git_vcontext.validation.files import check_bytes

pytestmark = pytest.mark.corpus

FINAL = "spec-embedded/v0.4-final-ce9510c/"

KNOWN_INVALID = {
    # file name -> the rules that reject it (names shortened: "…" = any middle part)
    # examples of a proposal without any container (only vContextInfo and x-fields)
    "vContext-alternative-namespaced__vContex…-Current-App.json": {"container"},
    "vContext-alternative-namespaced__vContex…-Proposed-Ap.json": {"container"},
    # their TRON twins hold only a bare vContextInfo value (standard TRON), no document
    "vContext-alternative-namespaced__vContex…-Current-App.tron": {"not-vcontext"},
    "vContext-alternative-namespaced__vContex…-Proposed-Ap.tron": {"not-vcontext"},
    # playbook items in the pre-event-log form (no eventId/targetId/operation/createdAt)
    "vContext-consider-GEPA__Integration-Oppo…da-GEPA-Opti.json": {"schema"},
    # evidence written as objects; seeds 000/001 define evidence as string[]
    "vContext-consider-agentic-patterns__Usag…g-Pattern-Ef.json": {"schema"},
    "vContext-extension-beads__Examples-Examp…ds-Execution.json": {"schema"},
    "vContext-extension-beads__Usage-Patterns…e-Extraction.json": {"schema"},
    # not parsable: '...' placeholder in TRON, a missing comma, a [...] placeholder
    "vContext-extension-claude__vContext-Exte…n-Token-Effi.tron": {"parse"},
    "vContext-extension-common__Extension-4-H…ures-Example.json": {"parse"},
    "vContext-extension-security__Security-Mo…Environments.json": {"parse"},
}


def known(name: str) -> set[str]:
    """The rules that reject a listed file (matching shortened names)."""
    for key, rules in KNOWN_INVALID.items():
        head, _, tail = key.partition("…")
        if name == key or (tail and name.startswith(head) and name.endswith(tail)):
            return rules
    return set()


def manifest(shared: Path) -> list[list[str]]:
    lines = (shared / "corpus" / "MANIFEST.tsv").read_text("utf-8").splitlines()
    return [line.split("\t") for line in lines[1:]]


def test_spec_v04_examples_validate_except_the_listed_ones(shared_dir: Path) -> None:
    corpus = shared_dir / "corpus"
    rows = [r for r in manifest(shared_dir) if r[1].startswith(FINAL)]
    checked = 0
    for row in rows:
        if row[6:8] != ["vContextInfo", "0.4"]:
            continue
        name = row[1].removeprefix(FINAL)
        report = check_bytes((corpus / row[1]).read_bytes(), name)
        assert {f.rule for f in report.findings} == known(name), report.lines()
        checked += 1
    assert checked >= 40


def test_older_spec_examples_are_reported_as_needing_migration(shared_dir: Path) -> None:
    corpus = shared_dir / "corpus"
    rows = [r for r in manifest(shared_dir) if r[1].startswith(FINAL) and r[7] in ("0.2", "0.3")]
    assert rows
    for row in rows:
        report = check_bytes((corpus / row[1]).read_bytes(), row[1])
        rules = {f.rule for f in report.findings}
        # needing migration never skips a check: the 0.4 schema and rules run as well
        assert "version" in rules or rules == {"parse"}, (row[1], report.lines())


def test_tron_examples_validate_like_their_json_twins(shared_dir: Path) -> None:
    folder = shared_dir / "corpus" / FINAL
    twins: dict[str, list[Path]] = defaultdict(list)
    for path in folder.iterdir():
        twins[path.stem].append(path)
    compared = 0
    for paths in twins.values():
        if len(paths) != 2:
            continue
        json_path, tron_path = sorted(paths)  # .json before .tron
        from_json = check_bytes(json_path.read_bytes(), json_path.name)
        from_tron = check_bytes(tron_path.read_bytes(), tron_path.name)
        if {"parse", "container"} & {f.rule for f in from_json.findings}:
            continue  # the JSON twin is itself broken (KNOWN_INVALID / MANIFEST notes)
        shape = [(f.rule, f.pointer) for f in from_json.findings]
        assert [(f.rule, f.pointer) for f in from_tron.findings] == shape, tron_path.name
        compared += 1
    assert compared >= 20


def test_every_corpus_file_gets_a_report_and_known_broken_json_is_a_parse_finding(
    shared_dir: Path,
) -> None:
    corpus = shared_dir / "corpus"
    seen = 0
    for row in manifest(shared_dir):
        path = corpus / row[1]
        if not path.is_file():
            continue
        report = check_bytes(path.read_bytes(), row[1])
        seen += 1
        if "INVALID JSON" in row[10]:
            assert [f.rule for f in report.findings] == ["parse"], row[1]
        for finding in report.findings:
            assert finding.message, (row[1], finding)
            assert finding.line is not None, (row[1], finding)
    assert seen > 900


def test_the_dag_cycle_example_is_rejected(shared_dir: Path) -> None:
    path = shared_dir / "corpus" / "docs" / "examples__invalid-cycle.vbrief.json"
    (finding,) = check_bytes(path.read_bytes(), path.name).findings
    assert finding.rule == "dependency-cycle"
    assert "a -> b -> c -> a" in finding.message
