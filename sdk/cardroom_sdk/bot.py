"""Bots: subclass :class:`Bot`, implement ``choose(view) -> action``, and run it."""

from __future__ import annotations

import importlib
import random
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cardroom_sdk.models import View
from cardroom_sdk.protocols import Action

if TYPE_CHECKING:
    from cardroom_sdk.client import Client
    from cardroom_sdk.models import GameSummary

__all__ = ["POLICIES", "Bot", "EagerBot", "FunctionBot", "RandomBot", "load_bot", "run_bot"]


class Bot:
    """A policy for one seat. Subclass it and implement :meth:`choose`.

    ``choose`` gets the seat's :class:`View` whenever the game waits for the seat
    (``view.my_turn``) and returns one action, normally one of ``view.legal_actions``
    (posted exactly as listed). ``view.hand`` is the seat's cards, ``view.public`` the public
    state. The optional hooks ``reconsider``, ``game_started`` and ``game_over`` are called
    as their names say.
    """

    name = "bot"

    def choose(self, view: View) -> Action:
        raise NotImplementedError(f"{type(self).__name__} must implement choose(view)")

    def reconsider(self, view: View) -> Action | None:
        """Change an answer already given? Return a new action, or None to keep it.

        Called when the game moved on (another seat answered, say) while this seat's answer
        in a simultaneous phase may still be changed: an Exact Plays declaration before
        everyone has declared (``view.can_act`` but not ``view.my_turn``). The default keeps
        every answer. Two bots that always change their minds would answer each other for
        ever: change only when it is worth it.
        """
        return None

    def game_started(self, view: View) -> None:
        """Called once, with the first view in which the seat may act (or the game ended)."""

    def game_over(self, view: View) -> None:
        """Called once, with the final view."""


class FunctionBot(Bot):
    """A bot made of a plain function ``choose(view) -> action``."""

    def __init__(self, choose: Callable[[View], Action], name: str | None = None):
        self._choose = choose
        self.name = name or getattr(choose, "__name__", "function")

    def choose(self, view: View) -> Action:
        return self._choose(view)


class RandomBot(Bot):
    """Any legal action, uniformly at random (``seed`` makes it repeatable)."""

    name = "random"

    def __init__(self, seed: int | str | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        if not view.legal_actions:
            raise ValueError("no legal action to choose from")
        return self.rng.choice(view.legal_actions)


# Generic preferences for any game: score and play first, pass and end last.
_RANKS = {
    "score": 4,
    "clear_red": 4,
    "play": 4,
    "give_red": 3,
    "play_blue": 2,
    "no_way": 1,
    "allow": 0,
    "draw": 0,
    "pass": -1,
    "end_turn": -2,
}


def _cards_in(value: Any, ids: set[str]) -> int:
    """How many of the seat's cards an action uses (card ids anywhere in it)."""
    if isinstance(value, str):
        return int(value in ids)
    if isinstance(value, dict):
        return sum(_cards_in(item, ids) for item in value.values())
    if isinstance(value, list):
        return sum(_cards_in(item, ids) for item in value)
    return 0


class EagerBot(Bot):
    """A tiny game-agnostic heuristic: rather do something (score, play, give a chore) than
    pass or end the turn, and among those the action that uses the most cards; ties are
    broken at random.

    It knows no game's rules. It is *not* the server's ``greedy`` policy (a game-specific
    heuristic the server plays for bot seats): ask the server for that one with
    ``create_game(..., bots={seat: "greedy"})``.
    """

    name = "eager"

    def __init__(self, seed: int | str | None = None):
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Action:
        if not view.legal_actions:
            raise ValueError("no legal action to choose from")
        ids = {str(card.get("id")) for card in view.hand} | {
            str(card.get("code")) for card in view.hand
        }

        def worth(action: Action) -> tuple[int, int, float]:
            rank = _RANKS.get(str(action.get("type")), 1)
            return rank, _cards_in(action, ids), self.rng.random()

        return max(view.legal_actions, key=worth)


POLICIES: dict[str, type[Bot]] = {"random": RandomBot, "eager": EagerBot}
"""The SDK's own bots, by the word ``load_bot`` and ``cardroom-bot --policy`` know them."""

# Words that name a server policy, not an SDK bot: refused with a pointer to the right word.
_SERVER_ONLY = {
    "greedy": "'greedy' is the server's policy, played by the server for bot seats "
    "(create the game with bots={seat: 'greedy'}); the SDK's game-agnostic heuristic, "
    "called GreedyBot before, is 'eager'",
}


def load_bot(spec: str) -> Bot:
    """``random``, ``eager`` or ``package.module:Name`` (a Bot subclass, a factory or a
    ``choose(view)`` function)."""
    if spec in POLICIES:
        return POLICIES[spec]()
    if spec in _SERVER_ONLY:
        raise ValueError(_SERVER_ONLY[spec])
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        words = ", ".join(POLICIES)
        raise ValueError(f"unknown policy {spec!r}: use {words} or package.module:Class")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if isinstance(target, Bot):
        return target
    if isinstance(target, type):
        made = target()
        if not callable(getattr(made, "choose", None)):
            raise TypeError(f"{spec} has no choose(view) method")
        return made if isinstance(made, Bot) else FunctionBot(made.choose, target.__name__)
    if callable(target):
        return FunctionBot(target)
    raise TypeError(f"{spec} is not a bot class or a function")


def run_bot(
    client: Client,
    game_id: str,
    bot: Bot,
    name: str = "bot",
    seat: int | None = None,
    token: str | None = None,
    *,
    timeout: float | None = None,
) -> GameSummary:
    """Join ``game_id`` as ``name`` (or use the seat of ``token``), play it to the end with
    ``bot`` and return the final summary."""
    handle = client.seat(game_id, seat, token) if token else client.join(game_id, name, seat)
    handle.play(bot, timeout=timeout)
    return client.game(game_id)


def renamed(name: str, stacklevel: int = 3) -> type[Bot]:
    """An old name of an SDK bot, with a DeprecationWarning pointing at the caller."""
    if name != "GreedyBot":
        raise AttributeError(name)
    warnings.warn(
        "cardroom_sdk.GreedyBot is now EagerBot (it is not the server's greedy policy); "
        "the old name will be removed",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    return EagerBot


def __getattr__(name: str) -> Any:
    try:
        return renamed(name)  # GreedyBot, the name before 0.2, kept for a while
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
