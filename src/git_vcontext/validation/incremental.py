"""Re-validating an edited document from the parts that changed (the MCP server's writes).

A document that had no finding and was edited copy-on-write shares every untouched
subtree, object for object, with its old self. Its schema verdict then follows from
the new top-level values and the container's new items and ``changeLog`` entries alone:
the root schemas only say what each top-level key holds, a container's schema what its
items and changes hold. The semantic rules (ids, dependencies, markers, dates) run on
the whole document, except the ``changeLog`` entries the old document had (the same
objects, judged already): each rule on a change judges that change alone, but for the
order of sequences, which the last of them still answers for (issue 37 finding 6: a
write's cost follows the items, not the history).
Anything this shortcut does not understand answers None: run the full validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..document import INFO_KEYS
from .checks import SCHEMAS, is_document, semantic_issues
from .rules import check_version, containers
from .schemas import PREFIX, quick_check, schema_contents

if TYPE_CHECKING:
    from typing import Any

ITEM_LOGS = ("items", "entries", "changeLog")
ROOT_KEYWORDS = frozenset({"$schema", "$id", "title", "description", "type", "properties", "$defs"})


def still_valid(old: Any, new: Any) -> bool | None:
    """Whether ``new`` has no finding, given that ``old`` had none (None: cannot tell)."""
    if not is_document(new) or not isinstance(old, dict):
        return None
    key = next((k for k in INFO_KEYS if k in new), None)
    if key is None or _version(old, key) != _version(new, key):
        return None
    version = _version(new, key)
    if key == "vContextInfo":  # as checks.check_document picks the schema
        schema: str | None = "vcontext-core"
    else:
        schema = SCHEMAS.get((key, version)) if isinstance(version, str) else None
    if schema is None or any(check_version(key, new.get(key))):
        return None
    verdict = _schema_valid(schema, old, new)
    if verdict is not True:
        return verdict
    return not any(semantic_issues(_recent_history(old, new), with_malformed=False))


def _recent_history(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new`` for the semantic rules, each container's ``changeLog`` cut to the changes
    the old document did not have, after the last old one with a numeric ``sequence``
    (the order of sequences goes on from it). Kept whole where the old log is not the
    very start of the new one, or the container's ``sequence`` went down or is no number
    (the old changes are then judged against it again)."""
    cut = dict(new)
    for name in containers(new):
        before, after = old.get(name), new.get(name)
        if not isinstance(before, dict) or not isinstance(after, dict):
            continue
        was, log = before.get("changeLog"), after.get("changeLog")
        if not isinstance(was, list) or not isinstance(log, list) or len(log) < len(was):
            continue
        top_was: Any = before.get("sequence")
        top: Any = after.get("sequence")
        if _number(top) and not (_number(top_was) and top >= top_was):
            continue
        if any(a is not b for a, b in zip(was, log, strict=False)):
            continue
        start = len(was)
        while start and not _number(_sequence(was[start - 1])):
            start -= 1
        start = max(start - 1, 0) if start else len(was)
        cut[name] = {**after, "changeLog": log[start:]}
    return cut


def _sequence(change: Any) -> Any:
    return change.get("sequence") if isinstance(change, dict) else None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _version(data: dict[str, Any], key: str) -> Any:
    info = data.get(key)
    return info.get("version") if isinstance(info, dict) else None


def _schema_valid(schema: str, old: dict[str, Any], new: dict[str, Any]) -> bool | None:
    root = schema_contents(schema)
    if set(root) - ROOT_KEYWORDS or set(old) != set(new):
        return None  # the root constrains more than each key's value, or keys came or went
    properties = root.get("properties", {})
    for key, value in new.items():
        if old[key] is value or key not in properties:
            continue  # untouched (it was valid), or a key the schema leaves free
        ref = _ref(schema, properties.get(key))
        if ref is None:
            return None
        verdict = _container_valid(ref, old.get(key), value)
        if verdict is not True:
            return verdict
    return True


def _container_valid(ref: str, old: Any, new: Any) -> bool | None:
    """The container without its items against its own schema, then each new item."""
    if not isinstance(new, dict):
        return _check(ref, new)
    shell = dict(new)
    for key in ITEM_LOGS:
        array = new.get(key)
        if not isinstance(array, list):
            continue
        item_ref = _item_ref(ref, key)
        if item_ref is None:
            return _check(ref, new)
        seen = {id(x) for x in (old or {}).get(key) or []} if isinstance(old, dict) else set()
        check = quick_check(item_ref)
        if check is None:
            return None
        if not all(id(x) in seen or check(x) for x in array):
            return False
        shell[key] = []
    return _check(ref, shell)


def _check(ref: str, value: Any) -> bool | None:
    check = quick_check(ref)
    return None if check is None else bool(check(value))


def _ref(schema: str, node: Any) -> str | None:
    """``file#/$defs/Type`` for a schema node that is only a ``$ref`` (None otherwise)."""
    if not isinstance(node, dict) or set(node) != {"$ref"}:
        return None
    target = str(node["$ref"])
    return schema + target if target.startswith("#") else target.removeprefix(PREFIX)


def _item_ref(ref: str, key: str) -> str | None:
    """The schema of the elements of the container's ``key`` array, when one ``$ref`` says
    it: in the container's own ``properties``, or those of the one schema it refers to
    or combines with ``allOf`` (``changeLog``: the extensions' ``containerExtras``), and
    nowhere else."""
    name, _, fragment = ref.partition("#")
    found = [
        (where, array)
        for where, node in _composed(name, _node(name, fragment))
        if (array := node.get("properties", {}).get(key)) is not None
    ]
    if len(found) != 1:
        return None
    where, array = found[0]
    if not isinstance(array, dict) or set(array) - {"type", "items", "description"}:
        return None
    return _ref(where, array.get("items"))


def _node(name: str, fragment: str) -> Any:
    node: Any = schema_contents(name)
    for part in fragment.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) and part else node
    return node


def _composed(name: str, node: Any) -> list[tuple[str, dict[str, Any]]]:
    """A schema node and the nodes its ``$ref`` and ``allOf`` members refer to, each with
    the schema it is in (None of them, when a member is anything but one ``$ref``)."""
    if not isinstance(node, dict):
        return []
    parts = [(name, node)]
    members = [node] if "$ref" in node else []
    members += node.get("allOf", [])
    for member in members:
        target = _ref(name, {"$ref": member["$ref"]}) if isinstance(member, dict) else None
        if target is None or (member is not node and set(member) != {"$ref"}):
            return []
        where, _, fragment = target.partition("#")
        inner = _node(where, fragment)
        if not isinstance(inner, dict):
            return []
        parts.append((where, inner))
    return parts
