"""The output of ``git vcontext diff`` for one or more files: text, markdown, json or a stat."""

from __future__ import annotations

from ..values import json_report
from .files import side_name
from .model import FORMAT_VERSION
from .render import palette, render_text, stat_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .files import FileDiff


def render_files(
    files: list[FileDiff], *, fmt: str = "text", color: bool = False, stat: bool = False
) -> str:
    """Every file that differs, in the requested format."""
    shown = [f for f in files if f.differs]
    if fmt == "json":
        return _json(shown)
    if stat:
        return _stat(shown)
    if fmt == "markdown":
        return "\n".join(_markdown(f) for f in shown)
    return "".join(_text(f, color) for f in shown)


def _text(f: FileDiff, color: bool) -> str:
    pal = palette(color)

    a, b = side_name("a", f.file.old_path), side_name("b", f.file.new_path)
    lines = [f"{pal.bold}diff --vcontext {a} {b}{pal.reset}"]
    lines += [f"{pal.bold}{line}{pal.reset}" for line in _status_lines(f)]
    if f.empty:
        lines.append(f"{pal.yellow}! {f.empty}{pal.reset}")
    if f.result is None:
        lines.append(f"{pal.yellow}! not a structural diff: {f.error}{pal.reset}")
        return "\n".join(lines) + "\n" + f.line_diff
    return "\n".join(lines) + "\n" + render_text(f.result, color=color)


def _status_lines(f: FileDiff) -> list[str]:
    file = f.file
    if file.status == "added":
        return ["new file"]
    if file.status == "deleted":
        return ["deleted file"]
    if file.status == "renamed":
        return [f"rename from {file.old_path}", f"rename to {file.new_path}"]
    return []


def _stat(files: list[FileDiff]) -> str:
    width = max((len(_stat_name(f)) for f in files), default=0)
    return "".join(f" {_stat_name(f):<{width}} | {_stat_summary(f)}\n" for f in files)


def _stat_name(f: FileDiff) -> str:
    file = f.file
    return f"{file.old_path} => {file.new_path}" if file.status == "renamed" else file.path


def _stat_summary(f: FileDiff) -> str:
    if f.result is None:
        return "not parsed (line diff)"
    extra = {"added": " (new file)", "deleted": " (deleted file)"}.get(f.file.status, "")
    return stat_line(f.result, f.file.status) + extra


def _markdown(f: FileDiff) -> str:
    # lazy: only for --format markdown
    from .markdown import code, render_markdown

    if f.result is not None:
        text = render_markdown(f.result, title=f.file.path)
        if f.empty:
            text += f"\n_{f.empty}_\n"
        if f.playbooks is not None and f.result:
            # lazy: only for --format markdown
            from .pictures import head_pictures

            text += head_pictures(*f.playbooks)
        return text
    fence = "```" if "```" not in f.line_diff else "~~~~"
    return "\n".join(
        [
            f"### {code(f.file.path)}",
            "",
            f"_Not a structural diff: {f.error}_",
            "",
            fence + "diff",
            f.line_diff.rstrip("\n"),
            fence,
            "",
        ]
    )


def _json(files: list[FileDiff]) -> str:
    changes: list[dict[str, Any]] = []
    summary = []
    for f in files:
        file = f.file
        entry: dict[str, Any] = {"path": file.path, "status": file.status}
        if file.status == "renamed":
            entry["oldPath"] = file.old_path
        if f.empty:
            entry["note"] = f.empty
        if f.result is None:
            entry["error"] = f.error
        else:
            entry["changes"] = len(f.result)
            changes += [{**c.to_json(), "file": file.path} for c in f.result.changes]
        summary.append(entry)
    out = {"version": FORMAT_VERSION, "changes": changes, "files": summary}
    return json_report(out)
