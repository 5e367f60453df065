"""The HTTP client: one ``requests.Session``, typed results, typed errors, safe retries.
A seat's handle, which plays on it, is :mod:`cardroom_sdk.seat`."""

from __future__ import annotations

import logging
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import requests

from cardroom_sdk import socket as game_socket
from cardroom_sdk._version import __version__
from cardroom_sdk.errors import ServerUnavailable, error_from_response
from cardroom_sdk.models import (
    ActionResult,
    EventBatch,
    GameList,
    GameSummary,
    GameType,
    Health,
    Joined,
    View,
)
from cardroom_sdk.protocols import MAX_WAIT
from cardroom_sdk.replay import Replay
from cardroom_sdk.retry import (
    TRANSPORT_ERRORS,
    Repeat,
    may_retry_answer,
    may_retry_failure,
    retry_after,
    retry_delay,
)
from cardroom_sdk.seat import Seat

__all__ = ["MAX_WAIT", "Client", "Seat"]

log = logging.getLogger("cardroom_sdk")

IDLE_REUSE = 4.0
"""A pooled connection idle this long is not sent on again but closed: the server closes an
idle keep-alive connection after 5 s, and a request sent just as it does would fail with no
answer (a create or a join could then not be retried)."""


def _json(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _quote_etag(etag: str) -> str:
    etag = etag.strip()
    return etag if etag.startswith(('"', "W/")) or etag == "*" else f'"{etag}"'


def _bots(bots: Mapping[int, str] | Iterable[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """``{1: "greedy"}`` or ``[{"seat": 1, "policy": "greedy"}]`` → the request's list."""
    if bots is None:
        return []
    if isinstance(bots, Mapping):
        return [{"seat": int(seat), "policy": policy} for seat, policy in bots.items()]
    return [dict(bot) for bot in bots]


class Client:
    """A cardroom server: every endpoint, with typed results and typed errors.

    ``timeout`` is the seconds to wait for the server (connect and read; a long-poll adds its
    ``wait``). Reads and actions are retried ``retries`` times on connection errors,
    timeouts, 409 ``busy`` and 502/503/504, after a random wait between half and all of
    ``backoff * 2**n`` seconds (at most ``max_backoff``; never sooner than the server's
    Retry-After), so clients refused together do not retry in lockstep. Every action
    carries an ``Idempotency-Key``, so a retried action is applied at most once. Creating
    and joining are retried only when the request cannot have reached the server (the
    connection failed) or the server said it applied nothing (409 ``busy``). See
    :mod:`cardroom_sdk.retry`.

    A ``Client`` holds one ``requests.Session`` (pass your own as ``session``); use one
    client per thread. It is a context manager that closes its session.

    Seats wait and play on the game socket (a WebSocket, :mod:`cardroom_sdk.socket`) when the
    ``websocket-client`` package is installed (``pip install 'cardroom-sdk[socket]'``): the
    server sends each new view on it and answers actions on it, with no request per move.
    Without it, with ``sockets=False``, or with a server or proxy that refuses the upgrade,
    they follow the game with held view requests instead (``GET …/view?wait=30`` with
    If-None-Match).
    """

    def __init__(
        self,
        base_url: str,
        timeout: float = 10.0,
        retries: int = 3,
        backoff: float = 0.2,
        session: requests.Session | None = None,
        *,
        max_backoff: float = 30.0,
        user_agent: str | None = None,
        sockets: bool = True,
    ):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.user_agent = user_agent or f"cardroom-sdk/{__version__}"
        self._own_session = session is None
        self.session = session if session is not None else requests.Session()
        self._sleep: Callable[[float], None] = time.sleep
        self._random = random.Random()  # the backoff's jitter
        # Seats follow games on the game socket while the server opens them (else HTTP: held
        # view requests, or the events long-poll on a server that does not hold views).
        self.sockets = sockets and game_socket.AVAILABLE
        self.held_views = True
        self._clock: Callable[[], float] = time.monotonic
        self._last_answer: float | None = None  # when the session last had an answer

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the session (only if the client created it)."""
        if self._own_session:
            self.session.close()

    # --- endpoints ----------------------------------------------------------------------

    def health(self) -> Health:
        """``GET /healthz``: ``.ok`` is False (not an exception) when the server says 503."""
        response = self._request("GET", "/healthz", expect=(200, 503))
        body = _json(response)
        if response.status_code == 503 and not isinstance(body, dict):
            raise error_from_response(503, body, response.text, retry_after(response))
        return Health.from_json(body if isinstance(body, dict) else {})

    def game_types(self) -> list[GameType]:
        """The games this server hosts: player counts, options with defaults, bot policies."""
        body = self._get_json("/v1/game-types")
        return [GameType.from_json(item) for item in body.get("game_types", [])]

    def create_game(
        self,
        game_type: str,
        players: int,
        options: Mapping[str, Any] | None = None,
        seed: int | None = None,
        bots: Mapping[int, str] | Iterable[Mapping[str, Any]] | None = None,
    ) -> GameSummary:
        """Create a game. ``bots`` are seats the server plays: ``{1: "greedy", 2: "random"}``
        or ``[{"seat": 1, "policy": "greedy"}]``. Not retried once the request may have
        reached the server (it would create a second game)."""
        body: dict[str, Any] = {"game_type": game_type, "players": players}
        if options:
            body["options"] = dict(options)
        if seed is not None:
            body["seed"] = seed
        bot_seats = _bots(bots)
        if bot_seats:
            body["bots"] = bot_seats
        response = self._request(
            "POST", "/v1/games", json_body=body, repeat=Repeat.IF_UNSENT, expect=(201,)
        )
        return GameSummary.from_json(_json(response) or {})

    def list_games(
        self,
        game_type: str | None = None,
        status: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
    ) -> GameList:
        """One page of games, newest first. A page may be short while ``next_cursor`` is set."""
        params = {"game_type": game_type, "status": status, "limit": limit, "cursor": cursor}
        return GameList.from_json(self._get_json("/v1/games", params=params))

    def iter_games(
        self, game_type: str | None = None, status: str | None = None, page_size: int = 100
    ) -> Iterator[GameSummary]:
        """Every game matching the filters, page after page."""
        cursor: str | None = None
        while True:
            page = self.list_games(game_type, status, limit=page_size, cursor=cursor)
            yield from page.games
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def game(self, game_id: str) -> GameSummary:
        """A game's public summary: status, seats, scores, version, result."""
        return GameSummary.from_json(self._get_json(self._game_path(game_id)))

    def join(
        self, game_id: str, name: str, seat: int | None = None, *, token: str | None = None
    ) -> Seat:
        """Take a free seat (``seat``, or the lowest free one) and return its :class:`Seat`.

        The seat's token is shown only once: keep ``seat.token`` if you need it later. Not
        retried once the request may have reached the server (it could take two seats).
        In a rematch, ``token`` (your token of the finished game) takes the seat kept for you.
        """
        joined = self._joined(game_id, name, seat, token)
        return Seat(self, joined.game_id, joined.seat, joined.token, name=name, joined=joined)

    def _joined(self, game_id: str, name: str, seat: int | None, token: str | None) -> Joined:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        response = self._request(
            "POST",
            self._game_path(game_id, "join"),
            json_body=body,
            token=token,
            repeat=Repeat.IF_UNSENT,
            expect=(201,),
        )
        return Joined.from_json(_json(response) or {}, game_id)

    def seat(self, game_id: str, seat: int | None, token: str) -> Seat:
        """A :class:`Seat` handle for a seat you joined before (``seat`` None: ask the
        server which seat the token belongs to)."""
        if seat is None:
            found = self.view(game_id, token).seat
            if found is None:
                raise ValueError("the server did not say which seat this token holds")
            seat = found
        return Seat(self, game_id, seat, token)

    def replay(self, game_id: str) -> Replay:
        """A finished game's replay, every hand face up, to step through (:class:`Replay`).
        Before the game ends the server refuses it (:class:`GameNotFinished`, a 409)."""
        return Replay(self._get_json(self._game_path(game_id, "replay")))

    def rematch(self, game_id: str, token: str) -> GameSummary:
        """Ask for a finished game's rematch as one of its seats: the same new game for every
        seat that asks. Take your seat in it with ``join(..., token=token)``
        (:meth:`Seat.rematch` does both)."""
        response = self._request("POST", self._game_path(game_id, "rematch"), token=token)
        return GameSummary.from_json(_json(response) or {})

    def come_back(self, game_id: str, token: str) -> View:
        """Come back to a seat the turn clock marked away: the game waits for it again."""
        response = self._request("POST", self._game_path(game_id, "back"), token=token)
        return View.from_json(_json(response) or {}, etag=response.headers.get("ETag"))

    def view(
        self,
        game_id: str,
        token: str | None = None,
        *,
        changed_from: View | None = None,
        wait: float = 0,
    ) -> View:
        """The seat's view (its hand, ``to_act``, ``legal_actions``…); no token: a spectator's.

        With ``changed_from`` (a view you hold) and ``wait`` > 0 (at most 30 s), the server
        holds the request until the game changes and answers with the new view; if nothing
        changed in ``wait`` seconds, ``changed_from`` itself is returned.
        """
        wait = min(max(0.0, float(wait)), MAX_WAIT)
        headers: dict[str, str] = {}
        params: dict[str, Any] = {}
        if changed_from is not None and changed_from.etag:
            headers["If-None-Match"] = _quote_etag(changed_from.etag)
            if wait:
                params["wait"] = round(wait, 3)
        response = self._request(
            "GET",
            self._game_path(game_id, "view"),
            token=token,
            params=params,
            headers=headers,
            expect=(200, 304),
            read_timeout=self.timeout + wait,
        )
        if response.status_code == 304 and changed_from is not None:
            return changed_from
        return View.from_json(_json(response) or {}, etag=response.headers.get("ETag"))

    def act(
        self,
        game_id: str,
        token: str,
        action: Mapping[str, Any],
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        """Submit one action as the token's seat (post one of ``view.legal_actions`` as is).

        Every action carries an ``Idempotency-Key`` (a new UUID unless you give one); retries
        reuse it, so the server applies the action at most once. ``if_match`` (a view's
        ``etag``) makes the server refuse with :class:`StaleVersion` if the game changed.
        """
        key = idempotency_key or str(uuid.uuid4())
        headers = {"Idempotency-Key": key}
        if if_match:
            headers["If-Match"] = _quote_etag(if_match)
        response = self._request(
            "POST",
            self._game_path(game_id, "actions"),
            json_body=dict(action),
            token=token,
            headers=headers,
        )
        replayed = response.headers.get("Idempotent-Replayed", "").lower() == "true"
        return ActionResult.from_json(_json(response) or {}, replayed=replayed, idempotency_key=key)

    def events(
        self,
        game_id: str,
        token: str | None = None,
        after: int = 0,
        wait: float = 0,
        limit: int | None = None,
    ) -> EventBatch:
        """Events with ``seq`` > ``after``, as this seat (or a spectator) may see them.

        With ``wait`` > 0 (at most 30 s) the server holds the request until an event arrives.
        """
        wait = min(max(0.0, float(wait)), MAX_WAIT)
        params: dict[str, Any] = {"after": max(0, int(after))}
        if wait:
            params["wait"] = round(wait, 3)
        if limit is not None:
            params["limit"] = limit
        response = self._request(
            "GET",
            self._game_path(game_id, "events"),
            params=params,
            token=token,
            read_timeout=self.timeout + wait,
        )
        return EventBatch.from_json(_json(response) or {})

    # --- plumbing -----------------------------------------------------------------------

    def _game_path(self, game_id: str, *rest: str) -> str:
        return "/".join(["/v1/games", quote(str(game_id), safe=""), *rest])

    def _get_json(self, path: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body = _json(self._request("GET", path, params=params))
        return body if isinstance(body, dict) else {}

    def _request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        repeat: Repeat = Repeat.SAFE,
        expect: tuple[int, ...] = (200,),
        read_timeout: float | None = None,
    ) -> requests.Response:
        """Send a request, retrying what is safe to retry; raise a CardroomError otherwise."""
        all_headers = {"Accept": "application/json, application/problem+json"}
        all_headers["User-Agent"] = self.user_agent
        if token is not None:
            all_headers["Authorization"] = f"Bearer {token}"
        all_headers.update(headers or {})
        query = {key: value for key, value in (params or {}).items() if value is not None}
        timeout = (self.timeout, read_timeout if read_timeout is not None else self.timeout)
        attempt = 0
        while True:
            last = attempt >= self.retries
            self._close_idle_connections()
            try:
                response = self.session.request(
                    method,
                    self.base_url + path,
                    params=query or None,
                    json=json_body,
                    headers=all_headers,
                    timeout=timeout,
                )
            except TRANSPORT_ERRORS as failure:
                self._last_answer = None
                if last or not may_retry_failure(failure, repeat):
                    raise self._no_answer(method, path, attempt, failure, repeat) from failure
                reason, delay = str(failure), self._delay(attempt, None)
            else:
                self._last_answer = self._clock()
                if response.status_code in expect:
                    return response
                error = error_from_response(
                    response.status_code, _json(response), response.text, retry_after(response)
                )
                if last or not may_retry_answer(error, repeat, self.max_backoff):
                    raise error
                reason, delay = str(error), self._delay(attempt, error.retry_after)
            log.warning("%s %s: %s; retrying in %.2fs", method, path, reason, delay)
            self._sleep(delay)
            attempt += 1

    def _close_idle_connections(self) -> None:
        """Close the session's pooled connections once idle for ``IDLE_REUSE`` seconds,
        before the server's keep-alive timeout closes them under a request (the next request
        opens a new one)."""
        if self._last_answer is None or self._clock() - self._last_answer < IDLE_REUSE:
            return
        for adapter in self.session.adapters.values():
            adapter.close()
        self._last_answer = None

    def _delay(self, attempt: int, server_asks: float | None) -> float:
        return retry_delay(attempt, server_asks, self.backoff, self.max_backoff, self._random)

    def _back_off(self, attempt: int) -> None:
        """Wait before retrying after ``attempt`` failures (a seat's broken game socket)."""
        self._sleep(self._delay(attempt, None))

    def _no_answer(
        self,
        method: str,
        path: str,
        attempt: int,
        failure: requests.RequestException,
        repeat: Repeat,
    ) -> ServerUnavailable:
        unsafe = repeat is not Repeat.SAFE and not may_retry_failure(failure, repeat)
        return ServerUnavailable(
            f"{method} {path}: no answer from {self.base_url} "
            f"after {attempt + 1} attempt(s): {failure}"
            + (" (not retried: the server may have received it)" if unsafe else "")
        )
