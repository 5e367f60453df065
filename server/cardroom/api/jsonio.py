"""JSON out: orjson where it gives the stdlib's bytes, the stdlib (``json``) everywhere else.

Where the two agree is judged once, in ``cardroom.jsonbytes``; elsewhere the stdlib encodes,
so nothing changes on the wire.

Floats print alike from 1e-4 to 1e16 (both the shortest repr); outside that range the
exponent is spelt differently (``1e-5`` against ``1e-05``), the same number. A NaN would be
``null`` rather than the stdlib's non-JSON ``NaN``.

In, ``loads`` decodes with orjson and leaves to the stdlib what orjson refuses and the stdlib
takes (``NaN``, lone surrogates) and any text with a run of 19 digits (orjson reads an
integer beyond 64 bits as a float), so it gives what ``json.loads`` gives.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

from cardroom.jsonbytes import orjson_if_stdlib

_COMPACT = (",", ":")
_LONG_TEXT = re.compile(r"[0-9]{19}")
_LONG_BYTES = re.compile(rb"[0-9]{19}")
COMPACT: dict[str, Any] = {"separators": _COMPACT}  # keyword arguments of a compact dumps


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, fast: the same values, the same ``ValueError`` on bad JSON."""
    long_number = _LONG_BYTES if isinstance(text, bytes) else _LONG_TEXT
    if long_number.search(text) is None:  # orjson would read one beyond 64 bits as a float
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def dumps_bytes(obj: Any) -> bytes:
    """``json.dumps(obj, separators=(",", ":")).encode()``, fast."""
    out = orjson_if_stdlib(obj)
    if out is None:
        return json.dumps(obj, separators=_COMPACT).encode()
    return out


class JSONProvider(DefaultJSONProvider):
    """Flask's default provider (``app.json``), encoding with orjson when the result is the
    same: JSON answers (``jsonify``, flask-smorest's responses; compact, as Flask answers when
    not in debug mode) and ``dumps(obj, **COMPACT)``. Any other ``dumps`` (the stdlib's
    spaced default, ``indent``…) is Flask's own. Only the provider's public interface is
    used; tests/api/test_jsonio.py holds its answers to Flask's, byte for byte.
    """

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.app = app

    def _fast(self, obj: Any) -> bytes | None:
        if not self.ensure_ascii:
            return None
        option = orjson.OPT_SORT_KEYS if self.sort_keys else 0
        return orjson_if_stdlib(obj, self.default, option)

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs == COMPACT:
            out = self._fast(obj)
            if out is not None:
                return out.decode()
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Any:
        if self.compact is False or (self.compact is None and self.app.debug):
            return super().response(*args, **kwargs)  # indented
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj = (args[0] if len(args) == 1 else args or kwargs) if args or kwargs else None
        out = self._fast(obj)
        if out is None:
            out = super().dumps(obj, separators=_COMPACT).encode()
        return self.app.response_class(out + b"\n", mimetype=self.mimetype)
