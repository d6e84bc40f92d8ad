"""A quick yes/no check of our own schemas, compiled to closures; jsonschema explains a no.

jsonschema takes ~90 ms to import and ~35 µs per subschema it descends into, which
made a 20,000-event playbook take 7 s. Valid documents (nearly all of them) only
need a verdict: this module compiles the keywords our bundled schemas use into
plain Python checks. A schema with any other keyword is not compiled (``None``), so
jsonschema stays the reference for everything; tests hold the two to the same verdicts.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Check = Callable[[Any], bool]

ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description"})


class Unsupported(Exception):
    """A keyword this compiler does not know: leave the schema to jsonschema."""


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": _is_number,
    "integer": lambda v: _is_number(v) and (isinstance(v, int) or float(v).is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class Compiler:
    """Compiles schema nodes of a set of resources (``$id`` -> contents) into checks."""

    def __init__(self, resources: dict[str, Any]) -> None:
        self.resources = resources
        self.done: dict[tuple[str, str], Check] = {}

    def ref(self, base: str, ref: str) -> Check:
        """The check for a ``$ref`` (absolute id or ``#`` fragment), compiled once."""
        uri, _, fragment = ref.partition("#")
        uri = uri or base
        key = (uri, fragment)
        found = self.done.get(key)
        if found is None:
            cell: list[Check] = []
            kept = len(self.done)
            found = self.done[key] = lambda v: cell[0](v)  # recursion: resolved once compiled
            try:
                cell.append(self.node(uri, self._resolve(uri, fragment)))
            except Unsupported:
                # no placeholder outlives a compilation that failed: a later reference to
                # one of them must fail as this one did, not call an empty cell
                for stale in list(self.done)[kept:]:
                    del self.done[stale]
                raise
            self.done[key] = cell[0]  # later references call it directly
            return cell[0]
        return found

    def _resolve(self, uri: str, fragment: str) -> Any:
        if uri not in self.resources:
            raise Unsupported(f"reference to {uri} outside the bundle")
        node = self.resources[uri]
        for part in filter(None, fragment.split("/")):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def node(self, base: str, schema: Any) -> Check:
        """The check for one schema object (all its keywords must hold)."""
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        made = [self._keyword(base, k, w, schema) for k, w in schema.items()]
        checks = [c for c in made if c is not None]
        if not checks:
            return lambda v: True
        return _every(checks)

    def _keyword(self, base: str, key: str, value: Any, schema: dict[str, Any]) -> Check | None:
        if key in ANNOTATIONS or key in ("then", "else"):
            return None
        maker = getattr(self, "k_" + key.lstrip("$"), None)
        if maker is None:
            raise Unsupported(key)
        check: Check | None = maker(base, value, schema)
        return check

    # -- keywords -------------------------------------------------------------
    def k_ref(self, base: str, value: str, _: Any) -> Check:
        return self.ref(base, value)

    def k_type(self, base: str, value: str | list[str], _: Any) -> Check:
        tests = [TYPES[t] for t in ([value] if isinstance(value, str) else value)]
        return tests[0] if len(tests) == 1 else _some(tests)

    def k_enum(self, base: str, value: list[Any], _: Any) -> Check:
        if not all(isinstance(x, str) for x in value):
            raise Unsupported("enum of non-strings")
        allowed = frozenset(value)
        return lambda v: isinstance(v, str) and v in allowed

    def k_required(self, base: str, value: list[str], _: Any) -> Check:
        names = tuple(value)

        def check(v: Any) -> bool:
            if isinstance(v, dict):
                for k in names:
                    if k not in v:
                        return False
            return True

        return check

    def k_properties(self, base: str, value: dict[str, Any], _: Any) -> Check:
        props = {k: self.node(base, s) for k, s in value.items()}
        get = props.get

        def check(v: Any) -> bool:
            if isinstance(v, dict):
                for k, x in v.items():
                    each = get(k)
                    if each is not None and not each(x):
                        return False
            return True

        return check

    def k_additionalProperties(self, base: str, value: Any, schema: dict[str, Any]) -> Check:
        known = frozenset(schema.get("properties", ()))
        if "patternProperties" in schema:
            raise Unsupported("patternProperties")
        if value is False:  # no other key at all
            return lambda v: not isinstance(v, dict) or known.issuperset(v)
        each = self.node(base, value)

        def check(v: Any) -> bool:
            if isinstance(v, dict):
                for k, x in v.items():
                    if k not in known and not each(x):
                        return False
            return True

        return check

    def k_items(self, base: str, value: Any, _: Any) -> Check:
        each = self.node(base, value)

        def check(v: Any) -> bool:
            if isinstance(v, list):
                for x in v:
                    if not each(x):
                        return False
            return True

        return check

    def k_minimum(self, base: str, value: float, _: Any) -> Check:
        return lambda v: not _is_number(v) or v >= value

    def k_maximum(self, base: str, value: float, _: Any) -> Check:
        return lambda v: not _is_number(v) or v <= value

    def k_minLength(self, base: str, value: int, _: Any) -> Check:
        return lambda v: not isinstance(v, str) or len(v) >= value

    def k_maxLength(self, base: str, value: int, _: Any) -> Check:
        return lambda v: not isinstance(v, str) or len(v) <= value

    def k_pattern(self, base: str, value: str, _: Any) -> Check:
        import re  # lazy: only a schema with patterns (VerMAS); vContext's have none

        search = re.compile(value).search
        return lambda v: not isinstance(v, str) or search(v) is not None

    def k_anyOf(self, base: str, value: list[Any], _: Any) -> Check:
        return _some([self.node(base, s) for s in value])

    def k_oneOf(self, base: str, value: list[Any], _: Any) -> Check:
        branches = [self.node(base, s) for s in value]
        return lambda v: sum(1 for b in branches if b(v)) == 1

    def k_allOf(self, base: str, value: list[Any], _: Any) -> Check:
        return _every([self.node(base, s) for s in value])

    def k_not(self, base: str, value: Any, _: Any) -> Check:
        inner = self.node(base, value)
        return lambda v: not inner(v)

    def k_if(self, base: str, value: Any, schema: dict[str, Any]) -> Check:
        cond = self.node(base, value)
        then = self.node(base, schema.get("then", True))
        other = self.node(base, schema.get("else", True))
        return lambda v: then(v) if cond(v) else other(v)


def _every(checks: list[Check]) -> Check:
    """All of ``checks`` hold (in order, stopping at the first that does not): plain calls,
    no generator per value (the guard checks every pushed document: issue 28)."""
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    if len(checks) == 3:
        first, second, third = checks
        return lambda v: first(v) and second(v) and third(v)

    def check(v: Any) -> bool:
        for each in checks:  # noqa: SIM110 (a loop: no generator per value)
            if not each(v):
                return False
        return True

    return check


def _some(checks: list[Check]) -> Check:
    """One of ``checks`` holds (in order, stopping at the first that does)."""
    if len(checks) == 2:
        first, second = checks
        return lambda v: bool(first(v) or second(v))

    def check(v: Any) -> bool:
        for each in checks:  # noqa: SIM110 (a loop: no generator per value)
            if each(v):
                return True
        return False

    return check
