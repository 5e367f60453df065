"""When orjson's bytes are the standard library's: judged here once, for every encoder.

orjson encodes about ten times faster than ``json.dumps``, and for what cardroom writes (str,
int, float, bool, None, lists and dicts with str keys, all ASCII) its output is byte for
byte the stdlib's compact output with ``ensure_ascii``. Where the two would differ, the
caller encodes with the stdlib instead (api/jsonio.py, table/idempotency.py):

- text outside ASCII, and DEL (U+007F): the stdlib escapes them (``\\u00e9``), orjson does not;
- integers beyond 64 bits, dict keys that are not strings, lone surrogates: orjson refuses;
- datetimes and dataclasses: orjson has its own format (passed through, so it refuses);
  other types it does not know go to the same ``default`` the stdlib would call.

The equivalence is orjson's documented output (compact, UTF-8, RFC 8259), not a promise to
match the stdlib: tests/api/test_jsonio.py and tests/test_sorted_json.py compare the two
byte for byte (docs/architecture.md, "Borrowed internals").
"""

from __future__ import annotations

from typing import Any

import orjson

_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def orjson_if_stdlib(obj: Any, default: Any = None, option: int = 0) -> bytes | None:
    """orjson's bytes when they are the stdlib's compact ``ensure_ascii`` bytes, else None."""
    try:
        out = orjson.dumps(obj, default=default, option=_PASSTHROUGH | option)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None
    if out.isascii() and b"\x7f" not in out:
        return out
    return None
