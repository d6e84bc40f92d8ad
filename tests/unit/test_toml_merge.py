"""Any TOML file merges by the generic rules (PRODUCT.md "VerMAS (seed 004) in full"):
random documents and edits through ``merge_files``, as the driver runs it."""

from __future__ import annotations

import tomllib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_vcontext.codecs.toml import dumps
from helpers.merging import merge_files
from helpers.toml_tables import TABLES as ANY_TABLES

TABLES = ANY_TABLES.filter(bool)  # an empty file is no document: M1 reads it as absent
SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _merge(o: dict[str, Any], a: dict[str, Any], b: dict[str, Any]) -> Any:
    raw = [dumps(x).encode() for x in (o, a, b)]
    return merge_files(raw[0], raw[1], raw[2], path="config.toml")


@SETTINGS
@given(o=TABLES, a=TABLES)
def test_m1_an_unchanged_side_gives_the_other_side_byte_for_byte(
    o: dict[str, Any], a: dict[str, Any]
) -> None:
    text_a = dumps(a).encode()
    assert _merge(o, o, a).output == text_a
    assert _merge(o, a, o).output == text_a


@SETTINGS
@given(o=TABLES, a=TABLES, b=TABLES)
def test_m16_any_toml_merge_is_structural_and_a_clean_result_reads_back(
    o: dict[str, Any], a: dict[str, Any], b: dict[str, Any]
) -> None:
    outcome = _merge(o, a, b)
    assert not any("internal error" in r for r in outcome.reasons), outcome.reasons
    assert outcome.status in ("clean", "conflict"), outcome.reasons
    if not outcome.clean:
        assert b"<<<<<<<" in outcome.output
    elif outcome.result is not None:  # (None: one side taken as it is, M1)
        assert tomllib.loads(outcome.output.decode()) == outcome.result.data


@SETTINGS
@given(o=TABLES, x=st.integers(), y=st.text(max_size=8))
def test_m2_edits_of_different_keys_by_each_side_both_arrive(
    o: dict[str, Any], x: int, y: str
) -> None:
    a = {**o, "ours_key": x}
    b = {**o, "theirs_key": y}
    outcome = _merge(o, a, b)
    assert outcome.clean
    merged = tomllib.loads(outcome.output.decode())
    assert merged == {**o, "ours_key": x, "theirs_key": y}


def test_m16_a_toml_merge_is_read_back_once(monkeypatch: Any) -> None:
    """M16 checks a clean TOML merge reads back as the merged data; render's own check of
    its tomlkit edit is that reading, handed to the driver instead of parsing again."""
    from git_vcontext.codecs import toml

    calls: list[str] = []
    real = toml.loads

    def counted(raw: Any) -> Any:
        calls.append(raw if isinstance(raw, str) else raw.decode())
        return real(raw)

    monkeypatch.setattr(toml, "loads", counted)
    base = '# steps\n[a]\nx = 1  # kept\n\n[b]\ny = "two"\n'
    ours = base.replace("x = 1", "x = 10")
    theirs = base.replace('"two"', '"three"')
    out = merge_files(base.encode(), ours.encode(), theirs.encode(), path="config.toml")
    assert out.clean
    text = out.output.decode()
    assert text == ours.replace('"two"', '"three"')  # comments and layout kept
    assert calls.count(text) == 1
    assert len(calls) == 4  # base, ours, theirs, the result
