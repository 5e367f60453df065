"""What a game package declares to be served: its engine, its bot policies, the version of
its rules, and optionally the web table's renderer for it.

A package offers a game under the ``cardroom.games`` entry point group, the entry point's
name being the game type and its object a ``GamePlugin`` (cardroom's own two games are
declared so in pyproject.toml, each in its own package under cardroom/games/). The registry
(cardroom/registry.py) loads them and refuses, with the reason, any whose declaration
``problems`` finds wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources

from cardroom.kit.base import Game
from cardroom.kit.contract_types import Action, View
from cardroom.kit.rng import Random
from cardroom.kit.shapes import REQUIRED_SHAPES, shape_name_problem

GAME_TYPE = re.compile(r"^[a-z][a-z0-9-]{1,31}$")
# The policy every game has without declaring it (cardroom/bots: any legal action). The
# registry also keeps the search levels' names (cardroom.bots.search.LEVELS).
RESERVED_POLICIES = frozenset({"random"})
RENDERER_FILE = re.compile(r"^[A-Za-z0-9_-]+\.js$")

# A bot: ``choose(view, legal, rng) -> action``, one of ``legal``, seeing only its seat's view.
Policy = Callable[[View, list[Action], Random], Action]


@dataclass(frozen=True)
class GamePlugin:
    """A game as a package offers it.

    - ``game``: the engine (one instance serves every game of the type);
    - ``policies``: its bot policies by name (every game also has ``random``);
    - ``rules_version``: raise it whenever a change makes a recorded game play differently
      (a rule, a deal, the meaning of an action). Each game records the version it started
      under; a game or replay recorded under another one is refused with a clear problem
      rather than replayed wrongly. A release that changes no rule keeps it;
    - ``renderer``: the file name of a JavaScript module in the engine's package (package
      data) that draws the game at the web table; without one the table's generic renderer
      draws it from the declared shapes (docs/writing-a-game.md);
    - ``descriptions``: a few words for a person choosing a bot, per policy name ("plays
      sensibly"), shown in the web table's seat menu and ``GET /v1/game-types``.

    The game's first policy also plays out the games the search levels imagine (a game
    that samples its hidden state gets ``search`` and ``search-strong``; without a policy of
    its own, those play-outs are random).
    """

    game: Game
    policies: Mapping[str, Policy] = field(default_factory=dict)
    rules_version: int = 1
    renderer: str | None = None
    descriptions: Mapping[str, str] = field(default_factory=dict)


def problems(declared: object, game_type: str) -> list[str]:
    """What is wrong with ``declared`` as the plug-in of ``game_type``, in words; [] if
    nothing is. Static checks only: the conformance test plays the game."""
    if not isinstance(declared, GamePlugin):
        return [f"the entry point gives a {type(declared).__name__}, not a GamePlugin"]
    game = declared.game
    if not isinstance(game, Game):
        return [f"its game is a {type(game).__name__}, not a cardroom Game"]
    found: list[str] = []
    if not GAME_TYPE.match(game_type):
        found.append(
            f"game type {game_type!r} is not 2 to 32 lower-case letters, digits and dashes"
        )
    if getattr(game, "game_type", None) != game_type:
        found.append(
            f"the entry point is named {game_type!r} but its game says"
            f" {getattr(game, 'game_type', None)!r}"
        )
    for name in ("title", "description", "moves", "shapes"):
        if not getattr(game, name, None):
            found.append(f"its game declares no {name}")
    shapes = getattr(game, "shapes", None) or {}
    found += [f"its shapes lack {name}" for name in REQUIRED_SHAPES if name not in shapes]
    found += [problem for name in shapes if (problem := shape_name_problem(str(name)))]
    low, high = getattr(game, "min_players", None), getattr(game, "max_players", None)
    if not (isinstance(low, int) and isinstance(high, int) and 1 <= low <= high):
        found.append(f"its players range {low!r} to {high!r} is not 1 <= min <= max")
    version = declared.rules_version
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        found.append(f"its rules_version {version!r} is not a whole number from 1")
    renderer = declared.renderer
    if renderer is not None and not (isinstance(renderer, str) and RENDERER_FILE.match(renderer)):
        found.append(f"its renderer {renderer!r} is not the name of a .js file in its package")
    elif renderer is not None and not _is_file(renderer_file(declared)):
        where = engine_package(game)
        found.append(
            f"its renderer {renderer!r} is not in its package {where}"
            if where
            else f"its renderer {renderer!r} is not in its package: its engine is in none"
        )
    for name, policy in declared.policies.items():
        if name in RESERVED_POLICIES:
            found.append(f"policy {name!r} is every game's own: it cannot be declared")
        elif not callable(policy):
            found.append(f"policy {name!r} is not callable")
    for name, words in declared.descriptions.items():
        if name not in declared.policies and name not in RESERVED_POLICIES:
            found.append(f"it describes a policy {name!r} it does not declare")
        elif not isinstance(words, str) or not words.strip():
            found.append(f"its description of policy {name!r} is not a few words")
    return found


def engine_package(game: Game) -> str | None:
    """The package of ``game``'s engine class, where its rules page and renderer are; None
    for an engine in a top-level module (it can ship neither)."""
    return type(game).__module__.rpartition(".")[0] or None


def package_file(game: Game, name: str) -> resources.abc.Traversable | None:
    """The file ``name`` in ``game``'s engine package (it may not exist); None if the engine
    is in no package."""
    package = engine_package(game)
    return None if package is None else resources.files(package) / name


def rules_file(game: Game) -> resources.abc.Traversable | None:
    """Where ``game``'s rules page would be: ``rules.md`` in its engine's package."""
    return package_file(game, "rules.md")


def renderer_file(plugin: GamePlugin) -> resources.abc.Traversable | None:
    """Where the plug-in's renderer module would be, if it names one."""
    return None if plugin.renderer is None else package_file(plugin.game, plugin.renderer)


def _is_file(path: resources.abc.Traversable | None) -> bool:
    return path is not None and path.is_file()
