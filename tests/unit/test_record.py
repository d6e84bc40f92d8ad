"""``@record``: the driver path's value type (no dataclasses import), and its ``replace``."""

from __future__ import annotations

import pytest

from git_vcontext.merging.textmerge import Markers
from git_vcontext.record import record, replace


@record
class Point:
    x: int
    y: int = 0


def test_replace_changes_the_fields_named_and_keeps_the_others() -> None:
    markers = Markers(9, "mine", "old", "yours", True, "\n", True)
    crlf = replace(markers, newline="\r\n")
    assert crlf == Markers(9, "mine", "old", "yours", True, "\r\n", True)
    assert markers.newline == "\n"  # the original is untouched


def test_replace_refuses_a_field_the_record_does_not_have() -> None:
    with pytest.raises(TypeError, match="has no field 'z'"):
        replace(Point(1), z=3)


def test_a_record_is_an_immutable_value() -> None:
    point = Point(1)
    assert point == Point(1, 0)
    assert hash(point) == hash(Point(1, 0))
    assert repr(replace(point, y=2)) == "Point(x=1, y=2)"
    with pytest.raises(AttributeError, match="immutable"):
        point.x = 2  # type: ignore[misc]
