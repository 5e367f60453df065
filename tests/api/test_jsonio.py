"""The orjson provider (api/jsonio.py) answers exactly as Flask's own provider would, byte
for byte: if a Flask release changes how its provider answers, this fails."""

from __future__ import annotations

import datetime
import decimal
import uuid

import pytest
from flask import Flask
from flask.json.provider import DefaultJSONProvider

from cardroom.api.jsonio import COMPACT, JSONProvider, dumps_bytes, loads

VALUES = [
    {"a": 1, "b": [1, 2.5, None, True], "c": {"d": "e"}},
    {"z": 1, "a": 2},
    [1, "two", 3.0, 1e-4, 1e15, -0.0],
    "text",
    None,
    {"name": "Zoë", "snow": "☃", "del": "\x7f"},
    {"big": 2**70},
    {"when": datetime.datetime(2026, 12, 1, 12, 0, tzinfo=datetime.UTC)},
    {"amount": decimal.Decimal("1.50"), "id": uuid.UUID(int=7)},
]


@pytest.fixture(params=[False, True], ids=["keys-in-order", "keys-sorted"])
def providers(request):
    app = Flask("jsonio")
    ours, flasks = JSONProvider(app), DefaultJSONProvider(app)
    ours.sort_keys = flasks.sort_keys = request.param
    with app.app_context():
        yield ours, flasks


@pytest.mark.parametrize("value", VALUES)
def test_responses_are_flasks_byte_for_byte(providers, value):
    ours, flasks = providers
    mine, theirs = ours.response(value), flasks.response(value)
    assert mine.get_data() == theirs.get_data()
    assert mine.mimetype == theirs.mimetype


def test_every_calling_form_is_flasks(providers):
    ours, flasks = providers
    for args, kwargs in [((), {}), ((1, 2), {}), ((), {"a": 1, "b": [2]}), (({"x": 1},), {})]:
        assert ours.response(*args, **kwargs).get_data() == (
            flasks.response(*args, **kwargs).get_data()
        )
    with pytest.raises(TypeError):
        ours.response(1, a=2)


@pytest.mark.parametrize("value", VALUES)
def test_compact_dumps_are_flasks(providers, value):
    ours, flasks = providers
    assert ours.dumps(value, **COMPACT) == flasks.dumps(value, **COMPACT)
    assert ours.dumps(value) == flasks.dumps(value)


def test_dumps_bytes_is_the_stdlib_compact_form():
    import json

    for value in VALUES[:7]:
        assert dumps_bytes(value) == json.dumps(value, separators=(",", ":")).encode()


def test_the_app_answers_through_the_provider(app):
    assert isinstance(app.json, JSONProvider)


def test_a_tiny_float_is_the_same_number_spelt_otherwise():
    """The one documented difference (api/jsonio.py): below 1e-4 the exponent is spelt
    without its leading zero. The number is the same."""
    import json

    assert json.loads(dumps_bytes([1e-5])) == [1e-5]


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"act","id":"k1","action":{"type":"play","cards":["7H","7S"]}}',
        '{"name":"Zo\\u00e9","n":-3,"f":2.5,"none":null,"t":true}',
        '"caf\u00e9"',
        "[NaN, Infinity, -Infinity]",  # the stdlib takes them; orjson does not
        "[123456789012345678901234567890]",  # beyond 64 bits: the stdlib's int
        "[-9223372036854775809, 18446744073709551616, 9223372036854775807]",
        '"\\ud800"',  # a lone surrogate: orjson refuses it
        '{"a":1,"a":2}',
        " [1, 2] ",
    ],
)
def test_loads_takes_what_the_stdlib_takes(text):
    import json
    import math

    ours, theirs = loads(text), json.loads(text)
    if text.startswith("[NaN"):
        assert math.isnan(ours[0]) and ours[1:] == theirs[1:]
    else:
        assert ours == theirs and type(ours) is type(theirs)
    assert loads(text.encode()) == ours or text.startswith("[NaN")


@pytest.mark.parametrize("text", ["", "{", "{'a': 1}", "[1,]", "nope", '{"a":1} x'])
def test_loads_refuses_what_the_stdlib_refuses_with_a_value_error(text):
    import json

    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        loads(text)
