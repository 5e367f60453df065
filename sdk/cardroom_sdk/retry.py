"""When the SDK sends a request again, and how long it waits first.

Two questions, each answered by a small function:

- *what to retry*: :func:`may_retry_failure` (no answer at all: the connection failed, timed
  out or broke off) and :func:`may_retry_answer` (an error answer: 409 ``busy``, 502/503/504);
- *how long to wait*: :func:`backoff_delay` (exponential, with jitter) and
  :func:`retry_delay` (never sooner than the server's ``Retry-After``).

The jitter is what keeps clients that were refused together (a 409 ``busy`` under contention,
a 503 while Redis fails over) from all coming back at the same instant and colliding again.
"""

from __future__ import annotations

import email.utils
import enum
import random
import time
from typing import Any

import requests
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from cardroom_sdk.errors import Busy, CardroomError

__all__ = [
    "RETRY_STATUSES",
    "TRANSPORT_ERRORS",
    "Repeat",
    "backoff_delay",
    "may_retry_answer",
    "may_retry_failure",
    "never_sent",
    "retry_after",
    "retry_delay",
]

RETRY_STATUSES = frozenset({502, 503, 504})
"""Answers that say "not now" without having done anything: the gateway or the store."""

TRANSPORT_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
)
"""No (complete) answer: the connection failed, timed out, or broke off mid-response."""


class Repeat(enum.Enum):
    """How safe it is to send a request twice."""

    SAFE = "safe"  # reads, and actions (they carry an Idempotency-Key)
    IF_UNSENT = "if-unsent"  # creating and joining: only if the server cannot have received it


def never_sent(error: requests.RequestException) -> bool:
    """True if the request certainly did not reach the server (the connection failed)."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    seen: set[int] = set()
    stack: list[Any] = [error]
    while stack:
        item = stack.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, NewConnectionError | ConnectTimeoutError):
            return True
        stack.extend([getattr(item, "reason", None), item.__cause__, item.__context__])
        stack.extend(arg for arg in getattr(item, "args", ()) if isinstance(arg, BaseException))
    return False


def retry_after(response: requests.Response) -> float | None:
    """Retry-After in seconds (delta-seconds or an HTTP date), None if absent or unreadable."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def may_retry_failure(error: requests.RequestException, repeat: Repeat) -> bool:
    """No answer came: send again if that is safe, or if the request never left."""
    return repeat is Repeat.SAFE or never_sent(error)


def may_retry_answer(error: CardroomError, repeat: Repeat, longest_wait: float) -> bool:
    """An error answer: ``busy`` applied nothing (always worth another try); 502/503/504 only
    for requests safe to repeat. Not when the server asks for a longer wait than
    ``longest_wait``: the caller had better hear of it (``error.retry_after``)."""
    if error.retry_after is not None and error.retry_after > longest_wait:
        return False
    return isinstance(error, Busy) or (repeat is Repeat.SAFE and error.status in RETRY_STATUSES)


def backoff_delay(attempt: int, base: float, cap: float, rng: random.Random) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (0 for the first).

    Exponential backoff with "equal jitter": a random time between half and all of
    ``base * 2**attempt`` (at most ``cap``). It still doubles from one attempt to the next,
    and clients that failed at the same moment spread over half the interval.
    """
    ceiling = min(cap, base * 2**attempt)
    return rng.uniform(ceiling / 2, ceiling)


def retry_delay(
    attempt: int, server_asks: float | None, base: float, cap: float, rng: random.Random
) -> float:
    """The backoff, but never sooner than the server's Retry-After (``server_asks``).

    When Retry-After is the longer, the wait is Retry-After plus a random part of up to half
    the backoff interval: clients told "in 1 s" do not all return at exactly 1 s.
    """
    delay = backoff_delay(attempt, base, cap, rng)
    if server_asks is None or server_asks <= delay:
        return delay
    return server_asks + rng.uniform(0, min(cap, base * 2**attempt) / 2)
