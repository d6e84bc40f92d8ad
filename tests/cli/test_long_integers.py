"""Integers of any length: every command reads them and writes them back with their spelling.

PRODUCT.md, "Formats": a number keeps the spelling it had (big integers exactly), also in
``convert``; so no digit is ever lost. Issue 31, point 7: an integer of more than 4,300
digits (Python's limit of its own decimal conversions) made validate, textconv, view,
convert, diff and merge fail ("internal error: ValueError: Exceeds the limit (4300
digits)"), and the MCP server exit at start when such a document was in its folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.mcp_support import run, stdio_params, text
from helpers.run import run_cli

LONG = "9" + "8" * 5000  # 5,001 digits
LONGER = "9" + "8" * 4999 + "9"
TODO = (
    '{"vContextInfo": {"version": "0.4"},\n "todoList": {"sequence": %s, "items": [\n'
    '  {"id": "t1", "title": "%s", "status": "pending", "metadata": {"n": %s}}]}}\n'
)
PLAYBOOK = {
    "vContextInfo": {"version": "0.4"},
    "playbook": {
        "version": 2,
        "items": [
            {
                "eventId": "e1",
                "targetId": "big",
                "operation": "append",
                "kind": "rule",
                "narrative": {"Overview": "x"},
                "evidence": ["LONG"],
                "createdAt": "2025-01-01T00:00:00Z",
            }
        ],
    },
}


def _todo(sequence: str, title: str, n: str) -> str:
    return TODO % (sequence, title, n)


@pytest.fixture(params=["json", "tron"])
def files(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, Path]:
    """Base, ours and theirs of a todo list holding 5,001-digit integers, in JSON or TRON."""
    sides = {
        "base": _todo(LONG, "x", LONG),
        "ours": _todo(LONGER, "ours", LONG),
        "theirs": _todo(LONG, "x", LONGER),
    }
    out = {}
    for name, content in sides.items():
        path = tmp_path / f"{name}.vcontext.json"
        path.write_text(content)
        if request.param == "tron":
            tron = tmp_path / f"{name}.vcontext.tron"
            done = run_cli("convert", str(path), "--to", "tron", "-o", str(tron))
            assert done.returncode == 0, done.stderr
            path.unlink()
            path = tron
        out[name] = path
    return out


def _ok(*args: str) -> str:
    done = run_cli(*args)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    return done.stdout.decode()


def test_validate_reads_integers_of_any_length(files: dict[str, Path]) -> None:
    _ok("validate", str(files["base"]))


def test_textconv_writes_integers_of_any_length_whole(files: dict[str, Path]) -> None:
    out = _ok("textconv", str(files["base"]))
    assert out.count(LONG) == 2


def test_convert_keeps_integers_of_any_length_both_ways(files: dict[str, Path]) -> None:
    other = "tron" if files["base"].suffix == ".json" else "json"
    out = _ok("convert", str(files["base"]), "--to", other)
    assert out.count(LONG) == 2
    back = files["base"].with_name(f"back.{other}")
    back.write_text(out)
    again = _ok("convert", str(back), "--to", files["base"].suffix[1:])
    assert again == files["base"].read_text() or again.count(LONG) == 2


def test_diff_shows_a_change_of_an_integer_of_any_length(files: dict[str, Path]) -> None:
    out = _ok("diff", "--format", "json", str(files["base"]), str(files["theirs"]))
    changes = json.loads(out.replace(LONGER, '"LONGER"').replace(LONG, '"LONG"'))["changes"]
    assert {"op": "change", "path": "/todoList/items/0/metadata/n"}.items() <= changes[0].items()
    assert (changes[0]["old"], changes[0]["new"]) == ("LONG", "LONGER")


def test_merge_keeps_integers_of_any_length_and_takes_the_larger_sequence(
    files: dict[str, Path],
) -> None:
    base, ours, theirs = (str(files[k]) for k in ("base", "ours", "theirs"))
    out = _ok("merge", base, ours, theirs)
    assert LONGER in out  # ours' sequence (M10: the larger) and theirs' number
    assert '"ours"' in out
    assert LONG not in out.replace(LONGER, "")


def test_view_reads_a_playbook_holding_an_integer_of_any_length(tmp_path: Path) -> None:
    path = tmp_path / "playbook.vcontext.json"
    path.write_text(json.dumps(PLAYBOOK, indent=2).replace('"version": 2', f'"version": {LONG}'))
    out = _ok("view", str(path), "--format", "json")
    assert [e["targetId"] for e in json.loads(out)["entries"]] == ["big"]


def test_the_mcp_server_serves_and_writes_a_document_with_long_integers(tmp_path: Path) -> None:
    """The server starts, lists and reads the document, and a write bumps the 5,001-digit
    sequence by one, every other digit kept."""
    from mcp import Client
    from mcp.client.stdio import stdio_client

    folder = tmp_path / "served"
    folder.mkdir()
    todo = folder / "todo.vcontext.json"
    todo.write_text(_todo(LONG, "x", LONG))

    async def main() -> dict[str, object]:
        async with Client(stdio_client(stdio_params(folder))) as client:
            listed = {r.uri for r in (await client.list_resources()).resources}
            assert "vbrief://todos/current" in listed
            assert LONG in text(await client.read_resource("vbrief://todos/current"))
            done = await client.call_tool("vbrief_create_todo", {"title": "after"})
            assert not done.is_error, text(done)
            checked = await client.call_tool("vcontext_validate", {})
            assert not checked.is_error, text(checked)
            data: dict[str, object] = done.structured_content or {}
            return data

    data = run(main)
    bumped = LONG[:-1] + "9"
    assert data["sequence"] == bumped  # in a string: more digits than JSON readers take
    written = todo.read_text()
    assert f'"sequence": {bumped}' in written
    assert written.count(LONG) == 1  # metadata.n untouched


def test_a_toml_integer_beyond_64_bits_is_a_located_parse_error(tmp_path: Path) -> None:
    """TOML says an integer it cannot hold in 64 bits must be an error: one located
    finding, not a crash."""
    path = tmp_path / "template.toml"
    path.write_text(f'template = "t"\nversion = {LONG}\n[[steps]]\nid = "a"\ntitle = "A"\n')
    done = run_cli("validate", str(path))
    assert done.returncode == 1, done.stderr
    assert b":2:11: invalid TOML: an integer beyond 64 bits [parse]" in done.stdout
    assert b"internal error" not in done.stderr
