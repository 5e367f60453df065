"""The conformance check: does a game keep the engine contract? Run it in your own suite::

    from cardroom.kit.conformance import check_game
    from my_game.plugin import plugin

    def test_my_game_conforms():
        check_game(plugin)  # random full games; raises ConformanceError naming the problem

It plays random games (players and options drawn from the game's own declarations), and at
every step checks:

- ``to_act`` names who may act, and only they have legal actions;
- every listed action is accepted (on a copy) and conforms to its declared move;
- actions built from the declarations but not listed, malformed ones (a field of the wrong
  kind, missing or unknown, an unknown type, not an object), actions of another phase and of
  seats that may not act are refused with a RuleError naming its rule and the field at fault,
  the state unchanged;
- no view, legal action list or event shows a seat (or a spectator) a card it may not see
  (``Game.hidden_cards``), and every view and event matches the game's declared shapes;
- the state round-trips through JSON, and play goes on from the round-tripped state;
- for a game that offers sampling (``Game.sample_state``, for search bots), at a tenth of the
  steps and for every seat: a sampled state gives that seat exactly its view and legal
  actions, hides the same cards, plays on, and depends only on its arguments.

After each game: it ended within a bounded number of steps, with winners and scores; the
same seed and actions give the same game. cardroom runs the same check on its own games
(tests/games/test_conformance.py), through its table's steps rather than the engine alone.

Needs ``jsonschema-rs`` (``pip install 'cardroom[kit]'``) to read the declared shapes.
"""

from cardroom.kit.conformance.games import (
    EngineTable,
    Played,
    Table,
    check_declarations,
    check_game,
    play,
)
from cardroom.kit.conformance.problems import ConformanceError
from cardroom.kit.conformance.shapes import Shapes

__all__ = [
    "ConformanceError",
    "EngineTable",
    "Played",
    "Shapes",
    "Table",
    "check_declarations",
    "check_game",
    "play",
]
