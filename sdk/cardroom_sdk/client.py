"""The HTTP client: one ``requests.Session``, typed results, typed errors, safe retries."""

from __future__ import annotations

import logging
import random
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import quote

import requests

from cardroom_sdk import socket as game_socket
from cardroom_sdk._version import __version__
from cardroom_sdk.errors import (
    GameFinished,
    IllegalAction,
    NotYourTurn,
    ServerUnavailable,
    StaleVersion,
    error_from_response,
)
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
from cardroom_sdk.protocols import Player
from cardroom_sdk.replay import Replay
from cardroom_sdk.retry import (
    TRANSPORT_ERRORS,
    Repeat,
    may_retry_answer,
    may_retry_failure,
    retry_after,
    retry_delay,
)
from cardroom_sdk.socket import SOCKET_ERRORS, GameSocket, SocketRefused, newer

__all__ = ["MAX_WAIT", "Client", "Seat"]

log = logging.getLogger("cardroom_sdk")

MAX_WAIT = 30.0
"""The longest long-poll the server holds (``wait`` ≤ 30 seconds)."""

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
        joined = Joined.from_json(_json(response) or {}, game_id)
        return Seat(self, joined.game_id, joined.seat, joined.token, name=name, joined=joined)

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


class Seat:
    """One seat of one game: its game id, seat number and token, and what it can do.

    Returned by :meth:`Client.join` or :meth:`Client.seat`. ``last_seq`` is the last event
    ``seq`` this handle has seen (through :meth:`events` and :meth:`act`): the default
    ``after`` of :meth:`events`.
    """

    def __init__(
        self,
        client: Client,
        game_id: str,
        seat: int,
        token: str,
        *,
        name: str | None = None,
        joined: Joined | None = None,
    ):
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self.name = name
        self.joined = joined
        self.last_seq = 0
        self._socket: GameSocket | None = None

    def __repr__(self) -> str:
        return f"Seat(game_id={self.game_id!r}, seat={self.seat})"

    def __enter__(self) -> Seat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the seat's game socket, if :meth:`wait_for_turn` opened one."""
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def _open_socket(self) -> GameSocket | None:
        """The seat's game socket, opened if need be; None when the game is followed over
        HTTP (sockets off, refused by the server or a proxy, or not reachable now)."""
        if self._socket is not None or not self.client.sockets:
            return self._socket
        try:
            self._socket = GameSocket(self.client, self.game_id, self.token)
        except SocketRefused as refused:
            log.info("game sockets refused (%s): following games over HTTP", refused)
            self.client.sockets = False
        except SOCKET_ERRORS as failure:
            log.warning("game %s: no game socket (%s); over HTTP this time", self.game_id, failure)
        return self._socket

    def _drop_socket(self, failure: BaseException) -> None:
        log.warning("game %s seat %d: the game socket broke (%s)", self.game_id, self.seat, failure)
        self.close()

    def summary(self) -> GameSummary:
        return self.client.game(self.game_id)

    def rematch(self, name: str | None = None) -> Seat:
        """Play again: the finished game's rematch (the same for every seat that asks), with
        this seat taken in it by this seat's token; returns the new game's :class:`Seat`."""
        summary = self.client.rematch(self.game_id, self.token)
        return self.client.join(
            summary.id, name or self.name or f"seat {self.seat}", token=self.token
        )

    def come_back(self) -> View:
        """Come back after the turn clock marked this seat away."""
        return self.client.come_back(self.game_id, self.token)

    def view(self, *, changed_from: View | None = None, wait: float = 0) -> View:
        """This seat's view; with ``changed_from`` and ``wait``, held until it changes
        (:meth:`Client.view`)."""
        return self.client.view(self.game_id, self.token, changed_from=changed_from, wait=wait)

    def act(
        self,
        action: Mapping[str, Any],
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        """Post an action as this seat: on its game socket when one is open, else over HTTP;
        both carry an Idempotency-Key, and a retry after a broken socket reuses it."""
        key = idempotency_key or str(uuid.uuid4())
        result = self._act_on_socket(action, if_match, key)
        if result is None:
            result = self.client.act(self.game_id, self.token, action, if_match, key)
        seen = [event.seq for event in result.events]
        if result.view is not None and result.view.last_seq is not None:
            seen.append(result.view.last_seq)
        self.last_seq = max([self.last_seq, *seen])
        return result

    def _act_on_socket(
        self, action: Mapping[str, Any], if_match: str | None, key: str
    ) -> ActionResult | None:
        """The action sent on the open game socket (None: no socket, send it over HTTP).

        A broken socket is opened again and the action sent again with the same key, after
        the client's backoff, as often as the client retries a request."""
        attempt = 0
        while self._socket is not None:
            try:
                return self._socket.act(action, if_match, key)
            except SOCKET_ERRORS as failure:
                self._drop_socket(failure)
                if attempt >= self.client.retries:
                    raise ServerUnavailable(
                        f"game {self.game_id}: no answer on the game socket after "
                        f"{attempt + 1} attempt(s): {failure}"
                    ) from failure
                self.client._sleep(self.client._delay(attempt, None))
                attempt += 1
                self._open_socket()
        return None

    def events(
        self, after: int | None = None, wait: float = 0, limit: int | None = None
    ) -> EventBatch:
        """Events after ``after`` (default: the last ``seq`` this handle has seen)."""
        batch = self.client.events(
            self.game_id,
            self.token,
            self.last_seq if after is None else after,
            wait,
            limit,
        )
        self.last_seq = max(self.last_seq, batch.last_seq)
        return batch

    def wait_for_turn(self, timeout: float | None = None, *, again: bool = False) -> View:
        """Block until the game waits for this seat (:attr:`View.my_turn`) or is finished;
        return the fresh view.

        On the seat's game socket (opened here, left open for the next wait or action, closed
        by :meth:`close`): the server sends the seat's view whenever the game changes, and
        this returns the first that waits for this seat. Without a socket, over HTTP: hold
        ``GET …/view?wait=30`` with the view's ETag as If-None-Match, which answers with the
        new view as soon as the game changes (a timed window's deadline too). No sleeping,
        no polling loop.

        A seat that has answered in a simultaneous phase (an Exact Plays declaration, which
        may be changed until everyone has declared) is not awaited: it waits until the game
        waits for it again. To change such an answer, look at ``seat.view().can_act`` or give
        your bot a :meth:`Bot.reconsider <cardroom_sdk.Bot.reconsider>`.

        ``again=True`` is deprecated: it returns as soon as the seat may act at all
        (:attr:`View.can_act`), awaited or not. Raises ``TimeoutError`` if ``timeout``
        seconds pass first.
        """
        if again:
            warnings.warn(
                "wait_for_turn(again=True) is deprecated: use seat.view().can_act to see "
                "whether an answer may still be changed, or Bot.reconsider",
                DeprecationWarning,
                stacklevel=2,
            )
        ends = _ends(timeout)
        view = self._current_view()
        while not (view.finished or (view.can_act if again else view.my_turn)):
            view = self._next_view(view, ends, timeout)
        return view

    def _current_view(self) -> View:
        """The view now: the first on a new socket, asked for on one already open."""
        had_socket = self._socket is not None
        sock = self._open_socket()
        if sock is not None:
            try:
                if had_socket:
                    return sock.look(self.client.timeout)
                view = sock.next_view(None, self.client.timeout)
                if view is not None:
                    return view
            except SOCKET_ERRORS as failure:
                self._drop_socket(failure)
        return self.view()

    def play(self, bot: Player, *, timeout: float | None = None) -> View:
        """Play this seat with ``bot`` until the game is finished; return the final view.

        The bot's :meth:`~cardroom_sdk.Bot.choose` is asked whenever the game waits for this
        seat; an answer already given is never sent again, unless the bot's
        :meth:`~cardroom_sdk.Bot.reconsider` decides to change it. ``timeout`` bounds each
        wait between two of this seat's moves (None: wait as long as it takes).
        """
        try:
            view = self.wait_for_turn(timeout)
            bot.game_started(view)
            ends = _ends(timeout)
            while not view.finished:
                if view.my_turn:
                    view = self._move(bot.choose(view), view)
                    ends = _ends(timeout)
                    continue
                view = self._next_view(view, ends, timeout)
                if view.can_act and not view.my_turn:
                    change = bot.reconsider(view)
                    if change is not None:
                        view = self._move(change, view)
                        ends = _ends(timeout)
            bot.game_over(view)
            return view
        finally:
            self.close()

    def _move(self, action: Mapping[str, Any], view: View) -> View:
        """Post ``action``, chosen from ``view``; return the view to go on from.

        That is the answer's view (it already holds every move the server's bots made inside
        this request). A refusal because the game had moved on (a window closed at its
        deadline, another seat answered first) is not an error: the fresh view is returned.
        A refusal of the very position the bot saw is the bot's mistake, and is raised.
        """
        log.info(
            "game %s seat %d plays %s (version %d)", self.game_id, self.seat, action, view.version
        )
        try:
            result = self.act(action, if_match=view.etag)
        except GameFinished:
            return self.view()
        except (NotYourTurn, StaleVersion, IllegalAction) as refusal:
            fresh = self._socket.latest if self._socket is not None else None
            if isinstance(refusal, StaleVersion) and self._socket is not None:
                # The game changed since the view: its socket brings the new view.
                try:
                    fresh = self._socket.next_view(view, self.client.timeout)
                except SOCKET_ERRORS as failure:
                    self._drop_socket(failure)
            if fresh is None or newer(view, fresh) is view:
                fresh = self.view()
            if (fresh.version, fresh.last_seq) == (view.version, view.last_seq):
                raise
            log.info(
                "game %s seat %d: the game moved on (%s); looking again",
                self.game_id,
                self.seat,
                refusal,
            )
            return fresh
        return result.view if result.view is not None else self.view()

    def _next_view(self, view: View, ends: float | None, timeout: float | None) -> View:
        """Block until the game has moved on from ``view``; return the new view.

        On the game socket: the next view the server sends (it sends one for every change,
        a timed window closing at its deadline included). Over HTTP: the held view request.
        """
        while True:
            wait = MAX_WAIT
            if ends is not None:
                left = ends - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"seat {self.seat} of game {self.game_id}: no turn within {timeout}s"
                    )
                wait = min(wait, left)
            sock = self._open_socket()
            if sock is not None:
                try:
                    found = sock.next_view(view, wait)
                except SOCKET_ERRORS as failure:
                    self._drop_socket(failure)
                    self.client._sleep(self.client._delay(0, None))
                    continue
                if found is not None:
                    return found
                continue
            if not self.client.held_views:
                fresh = self._after_events(view, wait)
            else:
                asked = time.monotonic()
                fresh = self.view(changed_from=view, wait=wait)
                if fresh is view and time.monotonic() - asked < min(1.0, wait / 2):
                    # Not modified, long before `wait`: a server that does not hold views.
                    log.info("the server does not hold view requests: following events")
                    self.client.held_views = False
            if fresh is not view:
                return fresh

    def _after_events(self, view: View, wait: float) -> View:
        """The events long-poll after the view's last event, then the view if any came
        (for a server that does not hold view requests); ``view`` itself if none came."""
        after = view.last_seq if view.last_seq is not None else self.last_seq
        batch = self.events(after=after, wait=wait)
        if batch.last_seq > after or (view.deadline is not None and time.time() >= view.deadline):
            return self.view()
        return view


def _ends(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout
