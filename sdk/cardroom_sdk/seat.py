"""A seat's handle: one seat of one game, its token, and what it can do (wait for its turn,
act, play a whole game with a bot), on the seat's game socket or over HTTP through its
client (:class:`~cardroom_sdk.Client`, which returns it from ``join``)."""

from __future__ import annotations

import logging
import time
import uuid
import warnings
from collections.abc import Mapping
from typing import Any

from cardroom_sdk.errors import (
    GameFinished,
    IllegalAction,
    NotYourTurn,
    ServerUnavailable,
    StaleVersion,
)
from cardroom_sdk.models import ActionResult, EventBatch, GameSummary, Joined, View
from cardroom_sdk.protocols import MAX_WAIT, Player, SeatClient
from cardroom_sdk.socket import SOCKET_ERRORS, GameSocket, SocketRefused, newer

__all__ = ["Seat"]

log = logging.getLogger("cardroom_sdk")


class Seat:
    """One seat of one game: its game id, seat number and token, and what it can do.

    Returned by :meth:`Client.join` or :meth:`Client.seat`. ``last_seq`` is the last event
    ``seq`` this handle has seen (through :meth:`events` and :meth:`act`): the default
    ``after`` of :meth:`events`.
    """

    def __init__(
        self,
        client: SeatClient,
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
        name = name or self.name or f"seat {self.seat}"
        joined = self.client._joined(summary.id, name, None, self.token)
        return Seat(
            self.client, joined.game_id, joined.seat, joined.token, name=name, joined=joined
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
                self.client._back_off(attempt)
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
                    self.client._back_off(0)
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
