"""The bundled JSON Schemas: one ``referencing`` registry, validators compiled once per process.

jsonschema and referencing cost tens of milliseconds to import, so nothing here is
imported before the first document that needs a schema check.
"""

from __future__ import annotations

import os
from _contextvars import ContextVar  # (contextvars and threading without their imports)
from _thread import RLock

from ..jsoncodec import loads
from ..shipped import folder, schemas_dir
from .fastcheck import Compiler, Unsupported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from functools import cache
    from typing import Any

else:

    def cache(function: Any) -> Any:
        """``functools.cache`` for functions of hashable positional arguments, without
        functools (which loads collections: a few ms of every guard run)."""
        memo: dict[Any, Any] = {}

        def cached(*args: Any) -> Any:
            try:
                return memo[args]
            except KeyError:
                value = memo[args] = function(*args)
                return value

        return cached


PREFIX = "urn:git-vcontext:schema:"
FILES = (
    "vcontext-extensions",
    "vcontext-playbooks",
    "vcontext-core",
    "vagenda-ace",
    "vbrief-0.5",
    "vermas",
)
"""Schema files in ``schemas/`` (``<name>.schema.json``, ``$id`` = PREFIX + name)."""


class _Bundle(dict):  # type: ignore[type-arg]
    """The bundled schemas by ``$id``, each file read when first asked for: a check of a
    todo list reads neither the VerMAS nor the ACE schema (the guard: issue 28)."""

    def __missing__(self, uri: str) -> Any:
        name = uri.removeprefix(PREFIX)
        if not uri.startswith(PREFIX) or name not in FILES:
            raise KeyError(uri)
        plain = folder("schemas")  # read without pathlib where it can be (the guard's light path)
        if plain is not None:
            with open(os.path.join(plain, f"{name}.schema.json"), encoding="utf-8") as fh:
                contents = loads(fh.read())
        else:
            contents = loads(schemas_dir().joinpath(f"{name}.schema.json").read_text("utf-8"))
        return self.setdefault(uri, contents)  # (two threads reading it: one object kept)

    def __contains__(self, uri: object) -> bool:
        return isinstance(uri, str) and uri.startswith(PREFIX) and uri[len(PREFIX) :] in FILES


@cache
def _bundle() -> _Bundle:
    return _Bundle()


@cache
def _contents_by_id() -> dict[str, Any]:
    """Every bundled schema (the same objects as the compiler's)."""
    bundle = _bundle()
    return {PREFIX + name: bundle[PREFIX + name] for name in FILES}


@cache
def _registry() -> Any:
    # lazy: jsonschema only to explain an invalid document
    from referencing import Registry, Resource

    resources = [(uri, Resource.from_contents(c)) for uri, c in _contents_by_id().items()]
    # no retrieve function: a reference to anything not bundled fails instead of fetching it
    return Registry().with_resources(resources).crawl()


@cache
def _compiler() -> Any:
    return Compiler(_bundle())


@cache
def quick_check(ref: str) -> Any:
    """A yes/no check for ``ref`` without jsonschema, or None when it cannot be compiled."""
    name, _, fragment = ref.partition("#")
    with _COMPILING:
        try:
            return _compiler().ref(PREFIX + name, "#" + fragment)
        except Unsupported:
            return None


_COMPILING = RLock()
"""One compilation at a time: a reference being compiled is a placeholder another thread
(the MCP server's workers) must not call before it is filled."""


@cache
def validator(ref: str) -> Any:
    """A compiled validator for ``<file>`` or ``<file>#/$defs/<Type>`` (cached per process)."""
    return _explaining()(_schema(ref), registry=_registry())


def reference(ref: str) -> Any:
    """jsonschema's own validator for ``ref``, without the quick check inside: the oracle
    the quick check and ``validator`` are held to."""
    # lazy: jsonschema only to explain an invalid document
    from jsonschema import Draft202012Validator

    return Draft202012Validator(_schema(ref), registry=_registry())


def _schema(ref: str) -> dict[str, Any]:
    name, _, fragment = ref.partition("#")
    return {"$ref": PREFIX + ref} if fragment else schema_contents(name)


@cache
def _explaining() -> Any:
    """Draft 2020-12 as jsonschema implements it, except that an array's elements the quick
    check passes are not descended into: jsonschema spends ~35 µs per subschema, so one
    invalid item among 150,000 took 50 s to explain (a valid document: 7 s), a cost anyone
    pushing to a guarded remote could choose. The quick check and jsonschema give the
    same verdicts (tests hold them to it), so the errors are the same."""
    # lazy: jsonschema only to explain an invalid document
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    plain = Draft202012Validator.VALIDATORS["items"]

    def items(validator: Any, each: Any, instance: Any, schema: Any) -> Iterator[Any]:
        quick = _quick_node(each) if "prefixItems" not in schema else None
        if quick is None or not isinstance(instance, list):
            yield from plain(validator, each, instance, schema)
            return
        failing = 0
        for index, item in enumerate(instance):
            if not quick(item):
                failing += 1
                if failing > MAX_ERRORS + 1:  # the rest are not explained (an anyOf's branch
                    return  # explains every element before one error is counted)
                yield from validator.descend(instance=item, schema=each, path=index)

    return extend(Draft202012Validator, validators={"items": items})


@cache
def _owners() -> dict[int, str]:
    """The ``$id`` of the bundled file each schema object belongs to, by identity (the
    contents are cached for the process: the identities hold)."""
    owners: dict[int, str] = {}
    for uri, contents in _contents_by_id().items():
        stack = [contents]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                owners[id(node)] = uri
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return owners


_QUICK_NODES: dict[int, Any] = {}


def _quick_node(schema: Any) -> Any:
    """The quick check of one bundled schema object, or None (not ours, or a keyword the
    quick check does not know)."""
    key = id(schema)  # the bundle's objects live as long as the process (_contents_by_id)
    if key not in _QUICK_NODES:
        with _COMPILING:
            uri = _owners().get(key) if isinstance(schema, dict) else None
            try:
                check = None if uri is None else _compiler().node(uri, schema)
            except Unsupported:
                check = None
            _QUICK_NODES[key] = check
    return _QUICK_NODES[key]


def schema_contents(name: str) -> dict[str, Any]:
    contents: dict[str, Any] = _bundle()[PREFIX + name]
    return contents


def schema_errors(ref: str, data: Any) -> Iterator[Any]:
    """The jsonschema errors of ``data`` against ``ref``, most specific first.

    Valid data is recognised by the compiled quick check; only invalid data pays for
    jsonschema (its import and its walk), which says where and why.
    """
    quick = quick_check(ref)
    if quick is not None and quick(data):
        return
    # lazy: only to explain an invalid document
    from itertools import islice

    budget = _BUDGET.get() or [MAX_ERRORS, False]
    left = max(int(budget[0]), 0)
    errors: list[Any] = list(islice(validator(ref).iter_errors(data), left + 1)) if left else [0]
    budget[0] = left - min(len(errors), left)
    for err in sorted(errors[:left], key=lambda e: [str(p) for p in e.absolute_path]):
        yield from _leaves(err)
    if len(errors) > left and not budget[1]:
        budget[1] = True
        yield TooMany(MAX_ERRORS)


MAX_ERRORS = 1000
"""Schema errors explained per file (a JSONL file's records share it): a file with more
stops there (each costs a walk of jsonschema; the finding after them says the list is
cut)."""

_BUDGET: ContextVar[list[Any] | None] = ContextVar("schema_error_budget", default=None)
"""What is left of the file's MAX_ERRORS, and whether the cut was said (per thread: the
MCP server validates in worker threads)."""


class error_budget:  # (lower case: used as a function, with error_budget(): ...)
    """One budget of MAX_ERRORS schema errors for everything validated inside (a file)."""

    def __enter__(self) -> None:
        self.token = _BUDGET.set([MAX_ERRORS, False])

    def __exit__(self, *_: object) -> None:
        _BUDGET.reset(self.token)


class TooMany:
    """In place of the errors after the first MAX_ERRORS (a finding at the document's root)."""

    validator = "maxErrors"
    absolute_path = ()
    relative_path = ()
    context = None

    def __init__(self, shown: int) -> None:
        self.message = f"more than {shown} schema errors: the first {shown} are listed"


def _leaves(err: Any) -> Iterator[Any]:
    """The error itself, or for anyOf/oneOf the branch errors that best explain it."""
    if err.validator in ("anyOf", "oneOf") and err.context:
        # lazy: jsonschema only to explain an invalid document
        from jsonschema.exceptions import best_match

        if all(e.validator == "required" and not e.relative_path for e in err.context):
            yield err  # "needs one of these fields": said as such by the message
            return

        best = best_match(err.context)
        deeper = len(best.absolute_path) > len(err.absolute_path)
        yield best if deeper or best.validator == "required" else err
        return
    yield err
