"""An Idempotency-Key keeps a digest of its action's sorted compact JSON (table/idempotency.py).
``sorted_json`` makes those bytes with orjson when they are the stdlib's and with the stdlib
otherwise: a key stored by a release that used the stdlib alone (every release before this
one) must still match a retry of the same action, and no action may match another's."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardroom.table.idempotency import sorted_json


def stdlib(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.sampled_from(
        [1e-5, 1e-7, 2.5e-5, 1e16, 1.5e17, 1e300, -0.0, 5e-324, 0.1, math.inf, -math.inf, math.nan]
    )
    | st.text()
    | st.sampled_from(["é", "\x7f", "\x00", "\u2028", "\ud800", "2e", "null", "NaN"]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=500)
@given(json_values)
def test_sorted_json_is_the_stdlibs_bytes(value):
    assert sorted_json(value) == stdlib(value)


@pytest.mark.parametrize("number", [1e-5, 1e-7, 2.5e-5, 1e16, 1.5e17, 123456.789, -0.0])
def test_a_float_anywhere_is_the_stdlibs_spelling(number):
    value = {"type": "bid", "amount": number, "cards": ["7H"]}
    assert sorted_json(value) == stdlib(value)


def test_an_action_in_the_shape_the_games_use_is_written_by_orjson_alike():
    action = {"type": "play", "cards": ["7H", "7S"], "seat": 2, "declare": {"pairs": 1}}
    assert (
        sorted_json(action)
        == stdlib(action)
        == (b'{"cards":["7H","7S"],"declare":{"pairs":1},"seat":2,"type":"play"}')
    )
