"""dumps: canonical JSON, and no NaN or infinity ever written (orjson would write them as null)."""

from __future__ import annotations

import math

import numpy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agi_core.errors import ValidationError
from agi_core.serialization import dumps, non_finite_path

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_dumps_refuses_exactly_the_data_that_holds_a_non_finite_float(data):
    path = non_finite_path(data)
    if path is None:
        assert isinstance(dumps(data), str)
    else:
        with pytest.raises(ValidationError, match="not a finite number"):
            dumps(data)


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"a": [1, {"b": math.nan}]}, "$.a[1].b"),
        ([None, math.inf], "$[1]"),
        ({"x": numpy.float64("-inf")}, "$.x"),  # a float subclass inside a container: walked too
        ({10**30: math.nan}, "$[1000000000000000000000000000000]"),  # a big int key: the json fallback too
    ],
)
def test_the_error_names_the_path_of_the_non_finite_number(data, path):
    with pytest.raises(ValidationError) as caught:
        dumps(data)
    assert caught.value.path == path


def test_null_in_data_or_text_is_written_as_it_is():
    assert dumps({"b": None, "a": "null"}) == '{"a":"null","b":null}'


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (math.nan, "$"),
        (-math.inf, "$"),
        (numpy.float64("nan"), "$"),  # a float subclass: the walk
        (0.5, None),
        ("null", None),
        (None, None),
        (True, None),
        (2**70, None),
        ("\ud800", None),
    ],
)
def test_a_bare_scalar_is_settled_as_the_walk_settles_it(data, path):
    assert non_finite_path(data) == path
    assert non_finite_path([data]) == (None if path is None else "$[0]")
