"""Writing TRON: class header, top-level pairs and values, laid out like the spec's examples."""

from __future__ import annotations

from ...jsoncodec import encode_basestring, string
from ...patterns import lazy
from ...spelling import Number, escape_lone_surrogates, int_text, number_text
from ...spelling import dumps as json_dumps
from ...values import MAX_DEPTH, JsonValue
from .header import property_list_end
from .names import is_property_name
from .plan import Plan, TronClass, plan_render, plan_standard, plan_vcontext

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    from . import TronDocument

    Flavor = Literal["vcontext", "standard"]
    _Item = str | tuple[JsonValue, str]  # text to write, or (value, indentation)
else:
    Flavor = str

_encode_string = encode_basestring
WIDTH = 100  # a container that fits in this many columns is written on one line


class TronStyle:
    """How a document indents (``step``), writes the keys of ``{}`` objects (``bare``) and
    lays out arrays of records (``rows``: one record a line, however long, as the spec's
    ``TodoItem(…)`` rows)."""

    __slots__ = ("bare", "rows", "step")

    def __init__(self, step: str = "  ", bare: bool = False, rows: bool = False) -> None:
        self.step = step
        self.bare = bare
        self.rows = rows


PLAIN = TronStyle()


def dumps(value: JsonValue, flavor: Flavor = "vcontext") -> str:
    """A fresh TRON text for any JSON value (the vContext dialect needs a non-empty object)."""
    if flavor not in ("vcontext", "standard"):
        raise ValueError(f"unknown TRON flavor {flavor!r} (vcontext or standard)")
    check_value(value)
    if flavor == "vcontext" and isinstance(value, dict) and value:
        plan = plan_vcontext(value)
        body = pairs_text(value, plan)
    else:
        plan = plan_standard(value)
        body = value_text(value, plan, "", 0)
    lines = class_lines(plan.new)
    return escape_lone_surrogates(("\n".join(lines) + "\n\n" if lines else "") + body + "\n")


def rewrite(doc: TronDocument, new: JsonValue) -> str:
    """``new`` written afresh with ``doc``'s header (verbatim), classes, dialect and line
    endings: for when ours' data cannot take an edit (ours has none, or a root of
    another kind)."""
    check_value(new)
    vcontext = doc.dialect == "vcontext" and isinstance(new, dict) and bool(new or doc.classes)
    plan = plan_render(doc, new, vcontext=vcontext)
    body = pairs_text(new, plan, pair_gap(doc)) if vcontext else value_text(new, plan, "", 0)
    if doc.final_newline and body:
        body += "\n"
    text = _header_before(doc, plan.new, bool(body)) + body.replace("\n", doc.newline)
    return escape_lone_surrogates(text)


def _header_before(doc: TronDocument, classes: list[TronClass], has_body: bool) -> str:
    """What goes before the data: ours' header, new classes, a separation if needed."""
    header = header_with(doc, classes)
    unindented = header.rstrip(" \t")
    if not unindented or unindented.endswith("\n"):  # ours' data was indented; ours is not
        header = unindented
    if has_body and header.strip() and len(doc.header) == len(doc.text):  # header-only ours
        header += doc.newline if header.endswith("\n") else doc.newline * 2
    return header


def header_with(
    doc: TronDocument, classes: list[TronClass], extended: dict[str, list[str]] | None = None
) -> str:
    """Ours' header text with new class definitions after its last one (and ``extended``
    classes' new properties at the end of their definitions)."""
    header = doc.header
    for name, props in (extended or {}).items():
        header = extend_class(header, name, props)
    if not classes:
        return header
    classes_end = doc.classes_end + len(header) - len(doc.header)
    lines = "".join(line + doc.newline for line in class_lines(classes))
    if not doc.classes:
        return lines + doc.newline + header
    newline = header.find("\n", classes_end)
    if newline < 0:  # header and data share a line ("class A: x; A(1)")
        return header[:classes_end] + doc.newline + lines + doc.newline
    return header[: newline + 1] + lines + header[newline + 1 :]


def extend_class(header: str, name: str, props: list[str]) -> str:
    """``header`` with ``props`` added after the last property of class ``name``."""
    end = property_list_end(header, name)
    if end is None or not props:
        return header
    return header[:end] + ", " + ", ".join(map(_property, props)) + header[end:]


def class_lines(classes: list[TronClass]) -> list[str]:
    """``class Name: a, b, "quoted-prop"`` for each class."""
    return [f"class {c.name}: {', '.join(map(_property, c.props))}" for c in classes]


def quoted(key: str) -> str:
    """A key as a JSON string."""
    return _encode_string(key)


def _property(name: str) -> str:
    return name if is_property_name(name) else string(name, ensure_ascii=False)


def pairs_text(root: dict[str, JsonValue], plan: Plan, gap: str = "\n\n") -> str:
    """The vContext dialect's top-level ``key: Value`` pairs, ``gap`` between them (a blank
    line, as in the spec's examples)."""
    parts = []
    for key, value in root.items():
        prefix = _property(key) + ": "
        parts.append(prefix + value_text(value, plan, "", len(prefix)))
    return gap.join(parts)


_PAIR_LINE = lazy(r'(?m)^(?:[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\\n]|\\.)*")[ \t]*:')


def pair_gap(doc: TronDocument) -> str:
    """What separates ours' top-level pairs: no blank line when none of them has one before
    it, else a blank line (also when ours has fewer than two pairs)."""
    data = doc.text[len(doc.header) :]
    starts = [m.start() for m in _PAIR_LINE().finditer(data)][1:]  # each after a "\n"
    if starts and all(data[data.rfind("\n", 0, s - 1) + 1 : s - 1].strip() for s in starts):
        return "\n"
    return "\n\n"


def value_text(
    value: JsonValue, plan: Plan, indent: str, column: int, style: TronStyle = PLAIN
) -> str:
    """One value: on one line when it fits in WIDTH, else one item per line (no recursion)."""
    out: list[str] = []
    stack: list[_Item] = [(value, indent)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            newline = item.rfind("\n")
            column = len(item) - newline - 1 if newline >= 0 else column + len(item)
            continue
        node, ind = item
        flat = _inline(node, plan, WIDTH - column - 1, style)
        if flat is not None or not isinstance(node, (dict, list)):
            flat = flat if flat is not None else _scalar(node)
            out.append(flat)
            column += len(flat)
            continue
        stack.extend(reversed(_expand(node, plan, ind, style)))
    return "".join(out)


def _expand(
    node: dict[str, JsonValue] | list[JsonValue], plan: Plan, ind: str, style: TronStyle
) -> list[_Item]:
    inner = ind + style.step
    if isinstance(node, list):
        if style.rows:  # records one a line, each on its line
            rows: list[_Item] = []
            for i, v in enumerate(node):
                rows.append(("," if i else "") + "\n" + inner)
                rows.append(flat_text(v, plan, style) if isinstance(v, dict) else (v, inner))
            return ["[", *rows, "\n" + ind + "]"]
        return ["[", *_lines([("", v) for v in node], inner), "\n" + ind + "]"]
    cls = plan.class_of(node)
    if cls is None:
        members = [(_key(k, style) + ": ", v) for k, v in node.items()]
        return ["{", *_lines(members, inner), "\n" + ind + "}"]
    args = [node.get(p) for p in cls.props]
    if len(args) == 1 and isinstance(args[0], (dict, list)) and args[0]:
        return [cls.name + "(", (args[0], ind), ")"]  # hugged, as in TodoList([ ... ])
    return [cls.name + "(", *_lines([("", v) for v in args], inner), "\n" + ind + ")"]


def _lines(members: list[tuple[str, JsonValue]], inner: str) -> list[_Item]:
    out: list[_Item] = []
    for i, (prefix, value) in enumerate(members):
        out.append(("," if i else "") + "\n" + inner + prefix)
        out.append((value, inner))
    return out


def flat_text(value: JsonValue, plan: Plan, style: TronStyle = PLAIN) -> str:
    """``value`` on one line whatever its length (for a place ours wrote on one line)."""
    text = _inline(value, plan, 1 << 62, style, apart=False)
    assert text is not None
    return text


def _inline(
    node: JsonValue, plan: Plan, budget: int, style: TronStyle, apart: bool = True
) -> str | None:
    """``node`` on one line if that takes at most ``budget`` characters (depth <= budget);
    ``apart``: never when it is an array of several records."""
    if isinstance(node, list):
        if apart and len(node) > 1 and any(isinstance(v, dict) for v in node):
            return None  # records one per line, as the spec does: line diffs stay readable
        items = [("", v) for v in node]
        return _inline_items("[", items, "]", plan, budget, style, apart) if node else "[]"
    if isinstance(node, dict):
        cls = plan.class_of(node)
        if cls is not None:
            args = [("", node.get(p)) for p in cls.props]
            return _inline_items(cls.name + "(", args, ")", plan, budget, style, apart)
        members = [(_key(k, style) + ": ", v) for k, v in node.items()]
        return _inline_items("{", members, "}", plan, budget, style, apart) if node else "{}"
    if isinstance(node, str) and len(node) + 2 > budget:
        return None
    text = _scalar(node)
    return text if len(text) <= budget else None


def _inline_items(
    opening: str,
    items: list[tuple[str, JsonValue]],
    closing: str,
    plan: Plan,
    budget: int,
    style: TronStyle,
    apart: bool,
) -> str | None:
    used = len(opening) + len(closing)
    parts: list[str] = []
    for prefix, value in items:
        used += len(prefix) + (2 if parts else 0)
        text = _inline(value, plan, budget - used, style, apart)
        if text is None:
            return None
        used += len(text)
        if used > budget:
            return None
        parts.append(prefix + text)
    return opening + ", ".join(parts) + closing


def _key(key: str, style: TronStyle) -> str:
    return key if style.bare and is_property_name(key) else _encode_string(key)


_LITERALS = {True: "true", False: "false", None: "null"}


def _scalar(value: JsonValue) -> str:
    """What json.dumps(value, ensure_ascii=False) writes, without its per-call set-up."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is int:
        try:
            return int.__repr__(value)
        except ValueError:  # more digits than Python converts at once
            return int_text(value)
    if kind is float or kind is Number:
        return number_text(value)
    if kind is bool or value is None:
        return _LITERALS[value]
    return json_dumps(value, ensure_ascii=False)


def check_value(value: JsonValue) -> None:
    """Refuse what TRON cannot hold: NaN/Infinity, non-string keys, nesting over MAX_DEPTH."""
    stack: list[tuple[JsonValue, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        kind = type(node)
        if kind is str or kind is int or kind is bool or node is None:
            continue
        if isinstance(node, (dict, list)):
            if depth >= MAX_DEPTH:
                raise ValueError(f"nesting deeper than {MAX_DEPTH} levels")
            if isinstance(node, dict):
                if not all(type(k) is str for k in node):
                    raise TypeError("object keys must be strings")
                stack.extend((v, depth + 1) for v in node.values())
            else:
                stack.extend((v, depth + 1) for v in node)
        elif isinstance(node, float):
            if node != node or node in (float("inf"), float("-inf")):
                raise ValueError(f"{node} is not a JSON number")
        elif not isinstance(node, (str, int)):
            raise TypeError(f"{type(node).__name__} is not a JSON value")
