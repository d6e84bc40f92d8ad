"""Standard-flavour output parses with the reference JavaScript implementation (@tron-format/tron).

Runs when node is installed and TRON_JS_DIR names a directory whose node_modules holds the
package (``cd DIR && npm install @tron-format/tron``); skipped otherwise.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_vcontext.codecs import tron

# The package is an ES module: import it by URL, parse every text given on stdin.
_SCRIPT = r"""
const { pathToFileURL } = await import("node:url");
const { parse } = await import(pathToFileURL(process.env.TRON_JS_ENTRY).href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = JSON.parse(input).map((text) => {
  try { return { ok: true, value: parse(text) }; }
  catch (e) { return { ok: false, error: String(e) }; }
});
process.stdout.write(JSON.stringify(results));
"""
JsParse = Callable[[list[str]], list[dict[str, Any]]]


def _entry_point() -> Path | None:
    base = os.environ.get("TRON_JS_DIR")
    if not base:
        return None
    for package in (Path(base) / "node_modules/@tron-format/tron", Path(base)):
        entry = package / "dist/index.js"
        if (package / "package.json").exists() and entry.exists():
            return entry
    return None


@pytest.fixture(scope="module")
def js_parse() -> JsParse:
    node, entry = shutil.which("node"), _entry_point()
    if node is None or entry is None:
        pytest.skip("reference parser not available: needs node and TRON_JS_DIR/node_modules")

    def run(texts: list[str]) -> list[dict[str, Any]]:
        env = {**os.environ, "TRON_JS_ENTRY": str(entry)}
        out = subprocess.run(
            [str(node), "--input-type=module", "-e", _SCRIPT],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        results: list[dict[str, Any]] = json.loads(out.stdout)
        return results

    return run


def js_equal(a: Any, b: Any) -> bool:
    """Equal as JavaScript sees data: numbers as doubles, objects without key order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-15, abs_tol=0.0) or a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(js_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(js_equal, a, b))
    return bool(a == b)


def _check(js_parse: JsParse, values: list[Any]) -> None:
    texts = [tron.dumps(v, "standard") for v in values]
    for value, text, result in zip(values, texts, js_parse(texts), strict=True):
        assert result["ok"], f"{result.get('error')}\n{text}"
        assert js_equal(result["value"], value), text


@pytest.mark.corpus
def test_reference_parser_reads_standard_output_of_the_corpus(
    js_parse: JsParse, shared_dir: Path
) -> None:
    values = []
    for path in sorted((shared_dir / "corpus").rglob("*.json")):
        try:
            values.append(json.loads(path.read_bytes()))
        except ValueError:
            continue
    _check(js_parse, values)


# Doubles only (JS numbers), and no "__proto__" key (a JS object cannot hold it as data).
_KEYS = st.text(max_size=6).filter(lambda k: k != "__proto__") | st.sampled_from(
    ["class", "null", "true", "false", "a b", "Content-Type", "id", "title", "status"]
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
)
_JSON = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_KEYS, children, max_size=4)
        | st.lists(
            st.dictionaries(st.sampled_from(["id", "title", "status"]), children), max_size=3
        )
    ),
    max_leaves=25,
)


@settings(max_examples=10, deadline=None)
@given(values=st.lists(_JSON, min_size=20, max_size=20))
def test_reference_parser_reads_standard_output_of_any_value(
    js_parse: JsParse, values: list[Any]
) -> None:
    _check(js_parse, values)


@settings(max_examples=10, deadline=None)
@given(
    olds=st.lists(_JSON, min_size=10, max_size=10), news=st.lists(_JSON, min_size=10, max_size=10)
)
def test_reference_parser_reads_edited_standard_documents(
    js_parse: JsParse, olds: list[Any], news: list[Any]
) -> None:
    """PRODUCT.md Formats: a minimal edit of a standard-flavour text is standard TRON too."""
    texts = [
        tron.loads(tron.dumps(o, "standard")).render(n) for o, n in zip(olds, news, strict=True)
    ]
    for value, text, result in zip(news, texts, js_parse(texts), strict=True):
        assert result["ok"], f"{result.get('error')}\n{text}"
        assert js_equal(result["value"], value), text
