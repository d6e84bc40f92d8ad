"""The bundled JSON Schemas: one ``referencing`` registry, validators compiled once per process.

jsonschema and referencing cost tens of milliseconds to import, so nothing here is
imported before the first document that needs a schema check.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cache

from ..jsoncodec import loads
from ..shipped import folder, schemas_dir
from .fastcheck import Compiler, Unsupported

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


@cache
def _contents_by_id() -> dict[str, Any]:
    plain = folder("schemas")  # read without pathlib where it can be (the guard's light path)
    if plain is not None:
        contents = {}
        for name in FILES:
            with open(os.path.join(plain, f"{name}.schema.json"), encoding="utf-8") as fh:
                contents[PREFIX + name] = loads(fh.read())
        return contents
    shipped = schemas_dir()
    return {
        PREFIX + name: loads(shipped.joinpath(f"{name}.schema.json").read_text("utf-8"))
        for name in FILES
    }


@cache
def _registry() -> Any:
    # lazy: jsonschema only to explain an invalid document
    from referencing import Registry, Resource

    resources = [(uri, Resource.from_contents(c)) for uri, c in _contents_by_id().items()]
    # no retrieve function: a reference to anything not bundled fails instead of fetching it
    return Registry().with_resources(resources).crawl()


@cache
def _compiler() -> Any:
    return Compiler(_contents_by_id())


@cache
def quick_check(ref: str) -> Any:
    """A yes/no check for ``ref`` without jsonschema, or None when it cannot be compiled."""
    name, _, fragment = ref.partition("#")
    try:
        return _compiler().ref(PREFIX + name, "#" + fragment)
    except Unsupported:
        return None


@cache
def validator(ref: str) -> Any:
    """A compiled validator for ``<file>`` or ``<file>#/$defs/<Type>`` (cached per process)."""
    # lazy: jsonschema only to explain an invalid document
    from jsonschema import Draft202012Validator

    name, _, fragment = ref.partition("#")
    schema: dict[str, Any] = {"$ref": PREFIX + ref} if fragment else schema_contents(name)
    return Draft202012Validator(schema, registry=_registry())


def schema_contents(name: str) -> dict[str, Any]:
    contents: dict[str, Any] = _contents_by_id()[PREFIX + name]
    return contents


def schema_errors(ref: str, data: Any) -> Iterator[Any]:
    """The jsonschema errors of ``data`` against ``ref``, most specific first.

    Valid data is recognised by the compiled quick check; only invalid data pays for
    jsonschema (its import and its walk), which says where and why.
    """
    quick = quick_check(ref)
    if quick is not None and quick(data):
        return
    errors = validator(ref).iter_errors(data)
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        yield from _leaves(err)


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
