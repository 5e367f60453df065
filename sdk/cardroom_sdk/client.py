"""The HTTP client: one ``requests.Session``, typed results, typed errors, safe retries."""

from __future__ import annotations

import logging
import random
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import requests

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
from cardroom_sdk.replay import Replay
from cardroom_sdk.retry import (
    TRANSPORT_ERRORS,
    Repeat,
    may_retry_answer,
    may_retry_failure,
    retry_after,
    retry_delay,
)

if TYPE_CHECKING:
    from cardroom_sdk.bot import Bot

__all__ = ["MAX_WAIT", "Client", "Seat"]

log = logging.getLogger("cardroom_sdk")

MAX_WAIT = 30.0
"""The longest long-poll the server holds (``wait`` ≤ 30 seconds)."""


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

    def view(self, game_id: str, token: str | None = None) -> View:
        """The seat's view (its hand, ``to_act``, ``legal_actions``…); no token: a spectator's."""
        response = self._request("GET", self._game_path(game_id, "view"), token=token)
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
                if last or not may_retry_failure(failure, repeat):
                    raise self._no_answer(method, path, attempt, failure, repeat) from failure
                reason, delay = str(failure), self._delay(attempt, None)
            else:
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

    def __repr__(self) -> str:
        return f"Seat(game_id={self.game_id!r}, seat={self.seat})"

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

    def view(self) -> View:
        return self.client.view(self.game_id, self.token)

    def act(
        self,
        action: Mapping[str, Any],
        if_match: str | None = None,
        idempotency_key: str | None = None,
    ) -> ActionResult:
        result = self.client.act(self.game_id, self.token, action, if_match, idempotency_key)
        seen = [event.seq for event in result.events]
        if result.view is not None and result.view.last_seq is not None:
            seen.append(result.view.last_seq)
        self.last_seq = max([self.last_seq, *seen])
        return result

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

        Built on the events long-poll: fetch the view; while the game does not wait for this
        seat, hold ``GET …/events?after=<the view's last_seq>&wait=…`` until something
        happens (another seat's move, a timed window's deadline), then fetch the view again.
        No sleeping, no polling loop.

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
        view = self.view()
        while not (view.finished or (view.can_act if again else view.my_turn)):
            view = self._next_view(view, ends, timeout)
        return view

    def play(self, bot: Bot, *, timeout: float | None = None) -> View:
        """Play this seat with ``bot`` until the game is finished; return the final view.

        The bot's :meth:`~cardroom_sdk.Bot.choose` is asked whenever the game waits for this
        seat; an answer already given is never sent again, unless the bot's
        :meth:`~cardroom_sdk.Bot.reconsider` decides to change it. ``timeout`` bounds each
        wait between two of this seat's moves (None: wait as long as it takes).
        """
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

        Long-polls the events after the view's ``last_seq``: any event wakes it, hidden ones
        included (``last_seq`` covers them). The server ends a wait at a timed window's
        deadline and closes the window, so that wakes it too.
        """
        after = view.last_seq if view.last_seq is not None else self.last_seq
        while True:
            wait = MAX_WAIT
            if ends is not None:
                left = ends - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"seat {self.seat} of game {self.game_id}: no turn within {timeout}s"
                    )
                wait = min(wait, left)
            batch = self.events(after=after, wait=wait)
            if batch.last_seq > after:
                return self.view()
            if view.deadline is not None and time.time() >= view.deadline:
                return self.view()  # a server that did not close the window: reading does


def _ends(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout
