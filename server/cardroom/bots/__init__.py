"""The server's bot seats: the policy every game has (``random``), the search levels every
game that samples its hidden state gets (``search``), and how a bot seat is played (which
seat, seeing what).

A policy is ``choose(view, legal, rng) -> action`` (cardroom.kit.Policy): it sees only what
its seat may see (the engine's view of that seat) and returns one of ``legal``. A game's own
policies live in its package and are declared by its ``GamePlugin``; the registry pairs them
with ``random`` and the search levels. A search level (``SearchPolicy``) also reads the
events its seat saw and the public options, and *thinks*: the server plays it off the
request path (docs/architecture.md, "Bots that think"). This package knows only the
author's kit.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from typing import Any

from cardroom.bots.search import SearchPolicy
from cardroom.kit import Action, Event, Game, Policy, Random, State, View

# What plays a bot seat: a policy, or a search level.
Bot = Policy | SearchPolicy


def random_policy(view: dict[str, Any], legal: list[dict[str, Any]], rng: Random) -> dict[str, Any]:
    """Any legal action, uniformly."""
    return rng.choice(legal)


def next_bot_seat(game: Game, state: State, bot_seats: Container[int]) -> int | None:
    """The seat a bot plays next: the lowest *awaited* bot seat, or None.

    Awaited, not merely allowed to act: in a simultaneous phase a seat that has answered may
    still change its answer, and a bot that acted on that would change its mind forever.
    """
    if game.result(state) is not None:
        return None
    return next((seat for seat in sorted(game.awaiting(state)) if seat in bot_seats), None)


def thinks(bot: Bot) -> bool:
    """Whether ``bot`` searches, and so is played off the request path."""
    return isinstance(bot, SearchPolicy)


def choose(
    game: Game,
    state: State,
    seat: int,
    bot: Bot,
    rng: Random,
    seen: Sequence[Event] | None = None,
    options: dict[str, Any] | None = None,
) -> Action:
    """What ``bot`` plays for ``seat``, seeing only that seat's view; a search level also
    reads ``seen`` (every event so far as the seat saw it) and ``options`` (the public
    options, ``game.public_options``)."""
    if thinks(bot) and (seen is None or options is None):
        raise ValueError("a search level reads the events its seat saw and the options")
    view = game.view(state, seat)
    legal = game.legal_actions(state, seat)
    return choose_thought(game, bot, view, legal, seen or (), options or {}, rng)


def choose_thought(
    game: Game,
    bot: Bot,
    view: View,
    legal: list[Action],
    seen: Sequence[Event],
    options: dict[str, Any],
    rng: Random,
) -> Action:
    """What ``bot`` plays from what its seat may read: its view and legal actions, and for a
    search level the events it saw and the public options."""
    if isinstance(bot, SearchPolicy):
        return bot.decide(game, view, legal, seen, options, rng)
    return bot(view, legal, rng)
