"""The registry of game types: every game, cardroom's own included, is a package's
``GamePlugin`` found under the ``cardroom.games`` entry point group (kit/plugin.py).

It sits above both the engines (games/) and the bots (bots/), so neither knows the other's
package. Every other part reads it: the table (which games and policies exist), the API
document (each game's action types, views and events), the simulator and the conformance test.

A plug-in that fails to import, fails the declaration's static checks or claims a game type
already served is refused with a log line naming its package and the reason; the other games
are served (``refused()`` lists them, ``cardroom games`` prints them).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from cardroom.bots import Bot, random_policy
from cardroom.bots.search import LEVELS, SearchPolicy, search_policies
from cardroom.kit import Game, GamePlugin
from cardroom.kit.plugin import problems, rules_file

GROUP = "cardroom.games"
# The distribution whose games no other package may take the type of.
BUILT_IN = "cardroom"
# What a person choosing a bot reads of the bots every game has (the search levels' own
# words are theirs: cardroom.bots.search.LEVELS).
RANDOM_WORDS = "plays any legal move: easy to beat"

log = logging.getLogger("cardroom.registry")


class UnavailableGameType(KeyError):
    """A game type no installed package serves here: never installed, uninstalled, or its
    package refused at start. Another instance with the package may serve it."""

    def __init__(self, game_type: str):
        super().__init__(game_type)
        self.game_type = game_type


class RulesChanged(UnavailableGameType):
    """A game recorded under another version of its game's rules (``GamePlugin.rules_version``)
    than the installed package plays: replaying its log under these rules could give another
    game, so it is not served here. An instance with that version of the package may."""

    def __init__(self, game_type: str, recorded: dict[str, Any], installed: Registered):
        super().__init__(game_type)
        self.recorded = recorded
        self.installed = installed


@dataclass(frozen=True)
class Found:
    """An entry point of the group, with the package (distribution) that declares it."""

    entry_point: EntryPoint
    package: str
    version: str


@dataclass(frozen=True)
class Registered:
    game: Game
    # Every bot a seat of this game may be played by, by name: "random", the game's own
    # policies, then the search levels if the game samples its hidden state.
    policies: dict[str, Bot]
    package: str
    version: str
    plugin: GamePlugin
    # Whether its package ships a rules page (rules.md beside its engine), served at
    # /rules/<game_type>.
    rules_page: bool

    def describe_bot(self, name: str) -> str:
        """A few words on the bot ``name`` for a person choosing one ("" if none)."""
        bot = self.policies[name]
        if name == "random":
            return RANDOM_WORDS
        if isinstance(bot, SearchPolicy):
            return bot.description
        return self.plugin.descriptions.get(name, "")

    @property
    def played_by(self) -> dict[str, Any]:
        """What a game records of the package that plays it (GameRecord.plugin)."""
        return {
            "package": self.package,
            "version": self.version,
            "rules_version": self.plugin.rules_version,
        }


@dataclass(frozen=True)
class Refused:
    game_type: str
    package: str
    version: str
    reason: str


def discover() -> list[Found]:
    """The group's entry points as installed, cardroom's own first."""
    found = [
        Found(
            point, point.dist.name if point.dist else "?", point.dist.version if point.dist else "?"
        )
        for point in entry_points(group=GROUP)
    ]
    return sorted(found, key=lambda f: (f.package != BUILT_IN, f.entry_point.name, f.package))


def load(found: Iterable[Found]) -> tuple[dict[str, Registered], list[Refused]]:
    """Each entry point's game, in order; a refused one is logged and left out."""
    games: dict[str, Registered] = {}
    refused: list[Refused] = []
    for each in found:
        name = each.entry_point.name
        reason = _refusal(each, games)
        if reason is not None:
            refused.append(Refused(name, each.package, each.version, reason))
            log.error(
                "game plug-in %r of package %s %s refused: %s",
                name,
                each.package,
                each.version,
                reason,
            )
            continue
        plugin: GamePlugin = each.entry_point.load()
        games[name] = _register(plugin, each)
    return games, refused


def _refusal(each: Found, games: dict[str, Registered]) -> str | None:
    name = each.entry_point.name
    if name in games:
        return f"game type {name!r} is already served by package {games[name].package}"
    try:
        declared = each.entry_point.load()
    except Exception as error:  # a plug-in's import may fail any way: it is refused
        return f"it failed to import: {type(error).__name__}: {error}"
    found = problems(declared, name)
    if isinstance(declared, GamePlugin):
        found += [
            f"policy {policy!r} is the name of a search level every such game has"
            for policy in declared.policies
            if policy in LEVELS
        ]
    return "; ".join(found) if found else None


def _register(plugin: GamePlugin, each: Found) -> Registered:
    game = plugin.game
    own = dict(plugin.policies)
    rollout = next(iter(own.values()), None)
    bots: dict[str, Bot] = {"random": random_policy, **own, **search_policies(game, rollout)}
    names = tuple(bots)
    # The turn clock's away_bot names one of the game's bot policies (kit/clock.py).
    game.option_specs = tuple(  # type: ignore[misc]
        replace(spec, choices=names) if spec.name == "away_bot" else spec
        for spec in game.option_specs
    )
    return Registered(
        game,
        bots,
        each.package,
        each.version,
        plugin,
        (rules := rules_file(game)) is not None and rules.is_file(),
    )


_LOADED: tuple[dict[str, Registered], list[Refused]] | None = None
_GAMES: dict[str, Game] | None = None


def _entries() -> dict[str, Registered]:
    global _LOADED
    if _LOADED is None:
        loaded = load(discover())
        if not any(entry.package == BUILT_IN for entry in loaded[0].values()):
            raise RuntimeError(
                "cardroom's own games are not registered: its package metadata has no"
                f" {GROUP} entry points (install it: pip install -e .)"
            )
        _LOADED = loaded
    return _LOADED[0]


def installed() -> dict[str, Registered]:
    """Every game served, by type, with its package and version."""
    return _entries()


def refused() -> list[Refused]:
    """The plug-ins refused at load, with the reason."""
    _entries()
    assert _LOADED is not None
    return _LOADED[1]


def registry() -> dict[str, Game]:
    """Every game type, by id."""
    global _GAMES
    if _GAMES is None:
        _GAMES = {name: entry.game for name, entry in _entries().items()}
    return _GAMES


def get_game(game_type: str, rules_version: int | None = None) -> Game:
    """The engine for ``game_type``; UnavailableGameType (a KeyError) if there is none.

    With ``rules_version`` (a recorded game's), RulesChanged if the installed package plays
    other rules: a recorded game is never replayed under rules it was not played by.
    """
    try:
        game = registry()[game_type]
    except KeyError:
        raise UnavailableGameType(game_type) from None
    if rules_version is not None:
        entry = _entries()[game_type]
        if entry.plugin.rules_version != rules_version:
            raise RulesChanged(game_type, {"rules_version": rules_version}, entry)
    return game


def serves(game_type: str, rules_version: int | None = None) -> bool:
    """Whether a game of ``game_type`` (recorded under ``rules_version``) is played here."""
    entry = _entries().get(game_type)
    return entry is not None and rules_version in (None, entry.plugin.rules_version)


def policies(game_type: str) -> dict[str, Bot]:
    """The bot policies of ``game_type`` by name; UnavailableGameType (a KeyError) for a
    game type not served here."""
    try:
        return _entries()[game_type].policies
    except KeyError:
        raise UnavailableGameType(game_type) from None


def get_policy(name: str, game_type: str) -> Bot:
    """The policy ``name`` for ``game_type``; KeyError if there is none."""
    return policies(game_type)[name]


def policy_names() -> list[str]:
    """Every policy name some game has, in registration order."""
    names: dict[str, None] = {}
    for entry in _entries().values():
        names.update(dict.fromkeys(entry.policies))
    return list(names)
