"""Checks for pictures: Graphviz's own reading of our DOT, mermaid's grammar rules, hostile ids.

``render_json`` runs the real ``dot`` (tests skip when it is not installed: CI installs
it with apt-get where it can). ``mermaid_parse`` runs the real mermaid parser when
``MERMAID_JS_DIR`` names a directory whose ``node_modules`` holds ``mermaid`` and
``jsdom`` (``.ci/run`` installs them with npm where it can).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HOSTILE_IDS = [
    'say "hi"',
    "back\\slash\\",
    "[brackets]{braces}(parens)<angles>",
    "new\nline\r\ttab",
    "#35; #quot; &amp; &#60; &lt;",
    "semi;colon %%{init: {'theme':'dark'}}%%",
    "<b>bold</b><script>alert(1)</script>",
    "é ü 漢字 🙂 \u202egnp.exe \u200b",
    "lone \udc80 surrogate",
    "end",
    "-->|x| B; A --> C",
    "`tick` $$x^2$$ *em* _u_ ~s~ |pipe|",
    "\\N\\G\\E\\T\\H\\L\\n\\l",
    "digraph { a -> b }",
    "x" * 3000,
    "",
    " ",
]
"""Event and target ids no document should have, and some will."""


def hostile_document() -> dict[str, Any]:
    """Each hostile id is a target with an append and two concurrent updates (two heads);
    one more event dangles, and one reuses an eventId."""
    from helpers.playbook import doc, ev

    events = []
    for i, h in enumerate(HOSTILE_IDS):
        target = f"T{i}:{h}"
        events.append(ev(f"{h}#{i}", target, "append", at=3 * i, text=h or "(empty)"))
        events.append(ev(f"{h}#{i}~u", target, "update", f"{h}#{i}", at=3 * i + 1, text=h))
        events.append(ev(f"{h}#{i}~v", target, "update", f"{h}#{i}", at=3 * i + 2, title=h))
    events.append(ev("dangling", "Tx", "update", 'missing "parent"\n', at=99))
    # a later event reusing a hostile id, in another target: drawn apart, ignored by the view
    copy = f"{HOSTILE_IDS[0]}#0"
    events.append(ev(copy, "T1:x", "update", HOSTILE_IDS[2], at=98, text=HOSTILE_IDS[3]))
    return doc(events)


# -- Graphviz ---------------------------------------------------------------------


def dot_path() -> str:
    """The ``dot`` executable, or the test is skipped with the reason."""
    found = shutil.which("dot")
    if found is None:
        pytest.skip("Graphviz 'dot' is not installed (CI installs it: apt-get install graphviz)")
    return found


def render_json(text: str) -> dict[str, Any]:
    """Graphviz's layout of a DOT text (``dot -Tjson``); any warning fails the test."""
    proc = subprocess.run(
        [dot_path(), "-Tjson"], input=text.encode(), capture_output=True, check=False
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stderr == b"", proc.stderr.decode(errors="replace")
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


@dataclass(frozen=True)
class Drawn:
    """One node as Graphviz laid it out: its classes, outline width and drawn text lines."""

    name: str
    classes: frozenset[str]
    penwidth: float
    lines: tuple[str, ...]


def drawn_nodes(layout: dict[str, Any]) -> list[Drawn]:
    """The nodes of a layout (clusters left out), each with the text lines dot drew."""
    out = []
    for obj in layout.get("objects", []):
        if "nodes" in obj or "pos" not in obj:
            continue  # a cluster
        texts = tuple(op["text"] for op in obj.get("_ldraw_", []) if op.get("op") == "T")
        classes = frozenset(str(obj.get("class", "")).split())
        out.append(Drawn(obj["name"], classes, float(obj.get("penwidth", 1)), texts))
    return out


def drawn_edges(layout: dict[str, Any]) -> list[dict[str, Any]]:
    edges: list[dict[str, Any]] = layout.get("edges", [])
    return edges


# -- mermaid ----------------------------------------------------------------------

_LABEL = r'"(?:[A-Za-z0-9 \-.,:/+=@!?\'()\u0080-\U0010ffff]|#\d+;|<br>)*"'
_ID = r"(?:[epab]\d+|info)"
_CSS = r"[a-z-]+:[#a-z0-9. ]+(?:,[a-z-]+:[#a-z0-9. ]+)*"
_STATEMENTS = [
    rf"  subgraph g\d+ \[{_LABEL}\]",
    r"  end",
    rf" +{_ID}\[{_LABEL}\]",
    rf"  {_ID} (?:-->|-\.->|---|-\.-)(?:\|{_LABEL}\|)? {_ID}",
    rf"  classDef [a-z_]+ {_CSS}",
    rf"  class {_ID}(?:,{_ID})* [a-z_]+",
    rf"  linkStyle \d+(?:,\d+)* {_CSS}",
    rf"  style g\d+ {_CSS}",
]
_STATEMENT = re.compile("|".join(f"(?:{s})" for s in _STATEMENTS))


def check_mermaid_rules(text: str) -> None:
    """Our rules for mermaid output (what the grammar needs, stricter where it is vague).

    A ``flowchart``; every statement one of the forms we write; labels quoted, holding
    no ``"``, no ``#`` or ``;`` outside an entity, no HTML but ``<br>``, no ``%``, ``$``,
    backtick or control character; ids generated (never a document's); every edge
    between declared nodes; ``linkStyle`` numbers within the edges.
    """
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "flowchart LR", lines[0]
    declared: list[str] = []
    edges = 0
    for line in lines[1:]:
        assert line.isprintable(), f"a character that is not printable: {line!r}"
        assert _STATEMENT.fullmatch(line), f"not a statement we write: {line!r}"
        if m := re.fullmatch(rf" +({_ID})\[.*\]", line):
            declared.append(m.group(1))
        if m := re.fullmatch(rf"  ({_ID}) \S+ ({_ID})", re.sub(r"\|\".*\"\|", "", line)):
            assert m.group(1) in declared, line
            assert m.group(2) in declared, line
            edges += 1
    assert len(declared) == len(set(declared)), "a node declared twice"
    for line in lines:
        if line.startswith("  linkStyle "):
            numbers = [int(n) for n in line.split()[1].split(",")]
            assert all(0 <= n < edges for n in numbers), line


def decode_label(label: str) -> list[str]:
    """The lines mermaid draws for a quoted label we wrote (entities decoded)."""
    body = label[1:-1]
    return [re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), part) for part in body.split("<br>")]


def mermaid_labels(text: str) -> list[list[str]]:
    """Every quoted label of a mermaid text, decoded to the lines mermaid draws."""
    return [decode_label(m.group()) for m in re.finditer(r'"[^"]*"', text)]


_PARSE_SCRIPT = r"""
const { JSDOM } = await import("jsdom");
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try { const r = await mermaid.parse(text); results.push({ ok: true, type: r.diagramType }); }
  catch (e) { results.push({ ok: false, error: String((e && e.message) || e) }); }
}
process.stdout.write(JSON.stringify(results));
"""
MermaidParse = Callable[[list[str]], list[dict[str, Any]]]


def mermaid_parser() -> MermaidParse:
    """The real mermaid parser (all texts in one node process), or the test is skipped."""
    node, base = shutil.which("node"), os.environ.get("MERMAID_JS_DIR")
    modules = Path(base or ".") / "node_modules"
    if node is None or not base or not (modules / "mermaid").is_dir():
        pytest.skip(
            "mermaid's parser is not available: needs node and MERMAID_JS_DIR/node_modules "
            "holding mermaid and jsdom (npm install mermaid jsdom)"
        )

    def parse(texts: list[str]) -> list[dict[str, Any]]:
        proc = subprocess.run(
            [str(node), "--input-type=module", "-e", _PARSE_SCRIPT],
            input=json.dumps(texts).encode(),
            capture_output=True,
            cwd=base,
            check=False,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")
        results: list[dict[str, Any]] = json.loads(proc.stdout)
        return results

    return parse
