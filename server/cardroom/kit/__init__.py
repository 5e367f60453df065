"""The game author's kit: everything a game package needs from cardroom, as a stable public
API (docs/writing-a-game.md). Import from here, not from the modules behind it::

    from cardroom.kit import Game, GamePlugin, Move, CardField, OptionSpec, IllegalAction

- the engine contract: ``Game`` (subclass it), ``OptionSpec``, ``CLOCK_SPECS`` (the turn
  clock's options, which a game lists after its own), the state's types;
- moves, declared once: ``Move`` and its fields (``CardField``, ``CardsField``, ``SeatField``,
  ``IntegerField``, ``ChoiceField``);
- shapes, the JSON Schema of what the engine gives out: ``shapes`` (``ref``, ``array``,
  ``obj``, ``nullable``, ``enum``, ``const``, ``CLOCK_EVENTS``, and the scalar schemas);
- the errors an engine raises: ``RuleError`` and its kinds, ``InvalidOptions``;
- seeded randomness carried in the state: ``rng`` (``new_rng``, ``shuffled``, ``choice``);
- the turn clock's state: ``new_clock``;
- the declaration a package registers: ``GamePlugin``, and ``Policy``, a bot's type;
- ``redact_event``: an event as one seat sees it.

The conformance check, for an author's own test suite, is ``cardroom.kit.conformance``
(it needs ``pip install 'cardroom[kit]'``). Nothing here does I/O, reads a clock or draws
from a global random generator; neither may an engine.
"""

from __future__ import annotations

from cardroom.kit import rng, shapes
from cardroom.kit.base import Game, redact_event
from cardroom.kit.clock import new_clock
from cardroom.kit.contract_types import Action, Args, Event, State, View
from cardroom.kit.errors import GameOver, IllegalAction, InvalidOptions, NotYourTurn, RuleError
from cardroom.kit.moves import CardField, CardsField, ChoiceField, IntegerField, Move, SeatField
from cardroom.kit.options import CLOCK_SPECS, OptionSpec
from cardroom.kit.plugin import GamePlugin, Policy
from cardroom.kit.rng import Random

__all__ = [
    "CLOCK_SPECS",
    "Action",
    "Args",
    "CardField",
    "CardsField",
    "ChoiceField",
    "Event",
    "Game",
    "GameOver",
    "GamePlugin",
    "IllegalAction",
    "IntegerField",
    "InvalidOptions",
    "Move",
    "NotYourTurn",
    "OptionSpec",
    "Policy",
    "Random",
    "RuleError",
    "SeatField",
    "State",
    "View",
    "new_clock",
    "redact_event",
    "rng",
    "shapes",
]
