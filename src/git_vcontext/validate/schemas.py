"""The bundled JSON Schemas: one ``referencing`` registry, validators compiled once per process.

jsonschema and referencing cost tens of milliseconds to import, so nothing here is
imported before the first document that needs a schema check.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache

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
def _registry() -> Any:
    from referencing import Registry, Resource

    from ..resources import schemas_dir

    folder = schemas_dir()
    resources = []
    for name in FILES:
        contents = json.loads(folder.joinpath(f"{name}.schema.json").read_text("utf-8"))
        resources.append((PREFIX + name, Resource.from_contents(contents)))
    # no retrieve function: a reference to anything not bundled fails instead of fetching it
    return Registry().with_resources(resources).crawl()


@cache
def validator(ref: str) -> Any:
    """A compiled validator for ``<file>`` or ``<file>#/$defs/<Type>`` (cached per process)."""
    from jsonschema import Draft202012Validator

    name, _, fragment = ref.partition("#")
    schema: dict[str, Any] = {"$ref": PREFIX + ref} if fragment else _contents(name)
    return Draft202012Validator(schema, registry=_registry())


def _contents(name: str) -> dict[str, Any]:
    contents: dict[str, Any] = _registry().contents(PREFIX + name)
    return contents


def schema_errors(ref: str, data: Any) -> Iterator[Any]:
    """The jsonschema errors of ``data`` against ``ref``, most specific first."""
    errors = validator(ref).iter_errors(data)
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        yield from _leaves(err)


def _leaves(err: Any) -> Iterator[Any]:
    """The error itself, or for anyOf/oneOf the branch errors that best explain it."""
    if err.validator in ("anyOf", "oneOf") and err.context:
        from jsonschema.exceptions import best_match

        if all(e.validator == "required" and not e.relative_path for e in err.context):
            yield err  # "needs one of these fields": said as such by the message
            return

        best = best_match(err.context)
        deeper = len(best.absolute_path) > len(err.absolute_path)
        yield best if deeper or best.validator == "required" else err
        return
    yield err
