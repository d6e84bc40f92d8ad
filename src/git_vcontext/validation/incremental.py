"""Re-validating an edited document from the parts that changed (the MCP server's writes).

A document that had no finding and was edited copy-on-write shares every untouched
subtree, object for object, with its old self. Its schema verdict then follows from
the new top-level values and the container's new items alone: the root schemas only
say what each top-level key holds, a container's schema what its items hold. The
semantic rules (ids, dependencies, markers, dates) always run on the whole document.
Anything this shortcut does not understand answers None: run the full validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..document import INFO_KEYS
from .checks import SCHEMAS, is_document, semantic_issues
from .rules import check_version
from .schemas import PREFIX, quick_check, schema_contents

if TYPE_CHECKING:
    from typing import Any

ITEM_LOGS = ("items", "entries")
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
    return not any(semantic_issues(new, with_malformed=False))


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
    """The schema of the elements of the container's ``key`` array, when it is one ``$ref``."""
    name, _, fragment = ref.partition("#")
    node: Any = schema_contents(name)
    for part in fragment.strip("/").split("/"):
        node = node.get(part) if isinstance(node, dict) else None
    array = node.get("properties", {}).get(key) if isinstance(node, dict) else None
    if not isinstance(array, dict) or set(array) - {"type", "items", "description"}:
        return None
    return _ref(name, array.get("items"))
