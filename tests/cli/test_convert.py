"""``git vcontext convert``: works for any JSON value; bad input never leaves a partial file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from git_vcontext.errors import ExitCode
from helpers.run import run_cli


def test_convert_json_to_json_normalises_to_two_space_indentation(tmp_path: Path) -> None:
    src = tmp_path / "in put.json"
    src.write_text('{"a":[1,2],"b":{"c":null}}')
    proc = run_cli("convert", str(src), "--to", "json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == json.dumps({"a": [1, 2], "b": {"c": None}}, indent=2) + "\n"


def test_convert_reads_stdin_and_writes_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out dir" / "x.json"
    out.parent.mkdir()
    proc = run_cli("convert", "-", "--to", "json", "-o", str(out), input=b"[1, 2, 3]")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text()) == [1, 2, 3]


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"a": 1,,}', ":1:"),
        (b"", ":1:1:"),
        (b'\xef\xbb\xbf{"a": }', ":1:"),
        (b'{"a": "\x00"}', ":1:"),
        (b"[" * 10_000 + b"]" * 10_000, ":1:257:"),
        (b'{"a": 1}\n<<<<<<< ours\n', ":2:1:"),
        (b'{"x": 1e400}', ":1:7:"),  # read as Infinity, it would be written as non-JSON
    ],
    ids=["invalid", "empty", "bom-invalid", "nul", "deep", "markers", "out-of-range"],
)
def test_bad_input_is_one_line_exit_1_and_no_output_file(
    tmp_path: Path, content: bytes, where: str
) -> None:
    src = tmp_path / "bad input.json"
    src.write_bytes(content)
    out = tmp_path / "out.json"
    proc = run_cli("convert", str(src), "--to", "json", "-o", str(out))
    assert proc.returncode == ExitCode.FOUND
    err = proc.stderr.decode()
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert f"bad input.json{where}" in err
    assert not out.exists()


def test_bad_input_leaves_an_existing_output_file_untouched(tmp_path: Path) -> None:
    src = tmp_path / "bad.json"
    src.write_text("{")
    out = tmp_path / "out.json"
    out.write_text("precious")
    assert run_cli("convert", str(src), "--to", "json", "-o", str(out)).returncode == 1
    assert out.read_text() == "precious"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_missing_file_is_an_operational_error(tmp_path: Path) -> None:
    proc = run_cli("convert", str(tmp_path / "nope.json"), "--to", "json")
    assert proc.returncode == ExitCode.OPERATIONAL
    assert b"no such file" in proc.stderr


@pytest.mark.slow
def test_a_50_mb_invalid_file_fails_fast_and_cleanly(tmp_path: Path) -> None:
    src = tmp_path / "huge.json"
    item = b'{"id": "t%d", "title": "x", "status": "pending"},'
    with src.open("wb") as fh:
        fh.write(b'{"items": [')
        fh.write(b"".join(item % i for i in range(1_000_000)))
        fh.write(b"}")  # wrong closing bracket at the very end
    assert src.stat().st_size > 50_000_000
    proc = run_cli("convert", str(src), "--to", "json", "-o", str(tmp_path / "o.json"))
    assert proc.returncode == ExitCode.FOUND
    assert b"huge.json:1:" in proc.stderr
    assert not (tmp_path / "o.json").exists()


def test_a_lone_surrogate_escape_is_written_back_as_an_escape(tmp_path: Path) -> None:
    """JSON allows "\\ud800" (not a character): convert and textconv keep it as that
    escape instead of failing to encode it."""
    src = tmp_path / "odd.json"
    src.write_text('{"vContextInfo": {"version": "0.4"}, "todoList": {"items": ["\\ud800"]}}')
    for target in ("tron", "json"):
        proc = run_cli("convert", str(src), "--to", target)
        assert proc.returncode == 0, proc.stderr
        assert b'"\\ud800"' in proc.stdout
    shown = run_cli("textconv", str(src))
    assert shown.returncode == 0, shown.stderr
    assert b"\\ud800" in shown.stdout


def test_json_reports_stay_utf8_when_a_document_holds_a_lone_surrogate(tmp_path: Path) -> None:
    """'\\udcff' (valid JSON syntax) must not come out as a raw 0xFF byte in a report."""
    import json

    doc = '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": [%s]}}'
    old, new, other = (tmp_path / n for n in ("old.json", "new.json", "other.json"))
    old.write_text(doc % '{"id": "t1", "title": "a"}')
    new.write_text(doc % '{"id": "t1", "title": "\\udcff"}')
    other.write_text(doc % '{"id": "t1", "title": "b"}')
    diff = run_cli("diff", "--format", "json", str(old), str(new))
    report = run_cli(
        "merge", str(old), str(new), str(other), "-o", str(tmp_path / "out.json"), "--report", "-"
    )
    for proc in (diff, report):
        assert b"\xff" not in proc.stdout, proc.stdout
        parsed = json.loads(proc.stdout.decode("utf-8"))  # strict UTF-8
        assert "\udcff" in json.dumps(parsed, ensure_ascii=False)


ISSUE_NUMBERS = (
    "3.141592653589793238462643383279",
    "100000000000000000000000000000000000000000000000001.5",
    "0.1e-5",
)


@pytest.mark.parametrize("flavor", ["vcontext", "standard"])
def test_convert_keeps_every_number_s_spelling_both_ways(tmp_path: Path, flavor: str) -> None:
    """PRODUCT.md Formats: a number keeps its spelling, also in convert (no digit rounded away)."""
    numbers = [*ISSUE_NUMBERS, "1.0", "1.50", "1E2", "-0", "123456789012345678901234567890"]
    src = tmp_path / "numbers.json"
    src.write_text('{{"n": [{}], "x": {{"y": {}}}}}\n'.format(", ".join(numbers), numbers[0]))
    tron_file = tmp_path / "numbers.tron"
    to_tron = run_cli(
        "convert", str(src), "--to", "tron", "--tron-flavor", flavor, "-o", str(tron_file)
    )
    assert to_tron.returncode == 0, to_tron.stderr
    back = run_cli("convert", str(tron_file), "--to", "json")
    assert back.returncode == 0, back.stderr
    for text in (tron_file.read_text(), back.stdout.decode()):
        for number in numbers:
            assert number in text, (number, text)
    assert back.stdout.decode().count(numbers[0]) == 2
