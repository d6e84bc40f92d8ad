"""The library API of PRODUCT.md: parse/dump both encodings, merge, diff, validate,
playbook_view; the README's example runs and type-checks under ``mypy --strict``."""

from __future__ import annotations

import contextlib
import io
import re
import site
import sysconfig
from pathlib import Path

import pytest

import git_vcontext as gv
from helpers.run import REPO_ROOT

DOC = (
    '{"vContextInfo": {"version": "0.4"}, '
    '"todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"}]}}'
)


def test_loads_dumps_both_encodings() -> None:
    doc = gv.loads(DOC)
    tron = gv.dumps(doc.data, "tron")
    assert gv.loads(tron, format="tron").data == doc.data
    assert gv.loads(gv.dumps(doc.data, "tron", tron_flavor="standard")).data == doc.data


def test_merge_diff_validate_are_the_functions_even_after_their_packages_were_imported() -> None:
    import git_vcontext.diffing.core
    import git_vcontext.merging.files
    import git_vcontext.validation.files

    assert gv.merge is git_vcontext.merging.merge
    assert gv.diff is git_vcontext.diffing.diff
    assert gv.validate is git_vcontext.validation.validate
    base = gv.loads(DOC).data
    ours = gv.loads(DOC.replace("pending", "completed")).data
    result = gv.merge(base, ours, base)
    assert result.clean
    assert result.data == ours
    changes = gv.diff(base, ours).changes
    assert [c.op for c in changes] == ["change"]


def test_playbook_view_is_exported() -> None:
    view = gv.playbook_view(
        {
            "playbook": {
                "items": [
                    {
                        "eventId": "e1",
                        "targetId": "x",
                        "operation": "append",
                        "kind": "rule",
                        "text": "t",
                        "createdAt": "2025-01-01T00:00:00Z",
                    }
                ]
            }
        }
    )
    assert [e.target_id for e in view.entries] == ["x"]


# -- the README's library example ----------------------------------------------------------

README_PRELUDE = """\
import git_vcontext as gv

text = '{"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}'
_BASE = (
    '{"vContextInfo": {"version": "0.4"},\\n'
    ' "todoList": {"items": [{"id": "t1", "title": "A", "status": "pending"},\\n'
    '                        {"id": "t2", "title": "B", "status": "pending"}]}}\\n'
)
base = gv.loads(_BASE, path="todo.vcontext.json")
ours = gv.loads(_BASE.replace('"A", "status": "pending"', '"A", "status": "completed"'))
theirs = gv.loads(_BASE.replace('"B", "status": "pending"', '"B", "status": "inProgress"'))
value = {"vContextInfo": {"version": "0.4"}, "todoList": {"items": []}}
"""


def _readme_library_example() -> str:
    readme = (REPO_ROOT / "README.md").read_text()
    section = readme.split("\n## Library\n", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found, "README: no python block under ## Library"
    return found.group(1)


def test_readme_library_example_runs_on_real_documents() -> None:
    example = _readme_library_example()
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(README_PRELUDE + example, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert isinstance(result, gv.MergeResult)
    assert result.clean
    statuses = [item["status"] for item in result.data["todoList"]["items"]]
    assert statuses == ["completed", "inProgress"]
    report = namespace["report"]
    assert isinstance(report, gv.FileReport)
    assert report.valid
    assert '"status": "inProgress"' in out.getvalue()


REVEALED = {  # what mypy must reveal for each name: the real signature, never Any
    "gv.merge": (
        "def (base: ",
        "theirs: ",
        "options: ",
        ") -> git_vcontext.merging.result.MergeResult",
    ),
    "gv.diff": ("def (old: ", ") -> git_vcontext.diffing.model.DiffResult"),
    "gv.validate": ("def (doc_or_data: ", ") -> git_vcontext.validation.model.FileReport"),
    "gv.playbook_view": (
        "def (data_or_playbook: ",
        ") -> git_vcontext.playbook.model.PlaybookView",
    ),
    "result": ("git_vcontext.merging.result.MergeResult",),
    "report": ("git_vcontext.validation.model.FileReport",),
    "doc": ("git_vcontext.codecs.Document",),
}


def test_issue18_readme_library_example_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    """No error under ``mypy --strict``, and the public names are the real functions (not
    ``Any`` from a module ``__getattr__``, not a subpackage that is "not callable"), also
    after ``import git_vcontext.merging``."""
    api = pytest.importorskip("mypy.api")
    reveals = "".join(f"reveal_type({name})\n" for name in REVEALED)
    probe = tmp_path / "readme_library.py"
    source = README_PRELUDE + _readme_library_example()
    probe.write_text(f"{source}import git_vcontext.merging, git_vcontext.diffing\n{reveals}")
    config = tmp_path / "mypy.ini"  # no project settings: the package as a user's code sees it
    root = Path(gv.__file__).resolve().parents[1]
    site_dirs = (sysconfig.get_paths()["purelib"], *site.getsitepackages())
    installed = {Path(p).resolve() for p in site_dirs}
    # An installed copy is found through site-packages (mypy refuses it on its path); a source
    # tree (editable install) is named on mypy's path.
    config.write_text("[mypy]\n" + ("" if root in installed else f"mypy_path = {root}\n"))
    stdout, stderr, status = api.run(
        [
            "--config-file",
            str(config),
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--python-version",
            "3.11",
            str(probe),
        ]
    )
    lines = stdout.splitlines()
    errors = [line for line in lines if ": error:" in line]
    assert not errors, "\n".join(errors) + stderr
    assert status == 0, stdout + stderr
    revealed = [line.split("Revealed type is ", 1)[1] for line in lines if "Revealed" in line]
    assert len(revealed) == len(REVEALED), stdout
    for (name, parts), got in zip(REVEALED.items(), revealed, strict=True):
        assert all(part in got for part in parts), f"{name}: {got}"


def test_the_public_names_are_one_list_for_the_type_checker_the_runtime_and_star_imports() -> None:
    """``__all__``, the lazy table and the type checker's imports name the same things:
    a name added to one and forgotten in another fails here, not in a user's code."""
    import ast

    source = Path(gv.__file__).read_text()
    [block] = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
    ]
    typed = {
        a.asname or a.name for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names
    }
    lazy = set(gv._LAZY)
    defined = {"__version__", "dumps", "load", "loads"}
    assert set(gv.__all__) == lazy | defined
    assert lazy <= typed
    for name in gv.__all__:
        assert getattr(gv, name) is not None, name
