"""A bot that searches, seeing only its own seat: determinised Monte Carlo search over the
seat's information set, with sequential halving at the root.

``decide`` answers one question: which of this seat's legal actions wins most often, over
full games drawn to agree with everything the seat knows and played out by the game's own
policy? Each *sample*:

1. **Determinise**: draw a full state consistent with what the seat knows
   (``Game.sample_state`` over its view, the events as it saw them and the public options:
   its hand, the public view, the cards already played or seen, the others' hand sizes, the
   deck's composition where the options make it public). Every sample is a fresh draw, and
   the search is never given the real state: it reads ``view``, ``seen`` and ``options``
   only, so it cannot know a card it may not see (tests/games/test_search.py proves it on
   twin positions).
2. **Try every surviving candidate on that same draw**: copy the state, apply the candidate,
   and play the game to its end with the rollout policy (every seat choosing from its own
   view of the sampled state, the searcher included), each candidate's play-out from the
   same sub-seed. Comparing candidates on common random numbers removes the luck of the deal
   and of the draws from their difference, which in these games is most of the variance.
3. **Score** the seat's value at the end (``Game.values``: by default a win 1, a win shared
   by ``k`` seats ``1/k``, else 0).

**Sequential halving** (Karnin, Koren & Somekh, "Almost Optimal Exploration in Multi-Armed
Bandits", ICML 2013; used at the root of MCTS by Cazenave, 2014) spends the budget: the
candidates are every distinct legal action; in each of ``ceil(log2 n)`` rounds every
survivor is tried on the round's samples (its share of what is left of the budget, at least
one sample), then the better half by mean value survives. The last one standing is played;
ties go to the rollout policy's own choice, then to ``legal``'s order. Simultaneous secret
phases (a declaration others have made but not shown) are sampled like hidden cards (the
game's sampler draws the others' secret answers), and out-of-turn reactions are the seat's
decision like any other: both are searched, not skipped.

**Why not a tree (ISMCTS).** The search first grew a single-observer ISMCTS tree (Cowling,
Powley & Whitehouse, IEEE TCIAIG 2012), guided by the game's policy (progressive bias and
widening). At the CPU a bot seat can afford (at most 100 ms a decision), a move costs the
engines 40 to 60 µs, so a decision plays out 20 to 60 games: too few for a tree below the
root to learn anything, and the tree's opponent nodes replaced the policy's sensible replies
by exploration. Measured against cardroom's greedy bots at the same CPU, this search won
more games than the tree in every one of the four settings measured, by 15 to 23 points
(docs/bots.md, "How the search was chosen", has the figures). The known limits
of determinised search (it assumes it will learn the hidden cards after this move:
"strategy fusion") cost little when the rollout policy, not the search, plays every later
move.

**The budget is simulated actions**, never time: a level is a number of engine actions the
play-outs may take in all (``Level.actions``), which tracks CPU across games and player
counts better than a count of samples (a 4-player game's play-out is twice a 2-player one's);
a decision stops drawing samples once its share is spent, so a late position, with short
play-outs, gets more of them. A decision is a pure function of its arguments and the
generator's state (no clock, no I/O; every draw from ``rng``): a seeded game replays.

**Nodes of meaning.** Two legal actions that differ only in which of two cards of one code
they name (two "5 of hearts" in a hand) are one candidate: actions are compared by their
canonical form with every card named by its ``code`` (``Move.canonical``; the kit puts a card
on the wire as ``{"id", "code", ...}``). Where a card's id is its code, nothing changes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from cardroom.kit import Action, Event, Game, Random, State, View

# A policy: (view, legal, rng) -> one of legal (cardroom.kit.Policy).
Rollout = Callable[[View, list[Action], Random], Action]

# Actions a play-out may take before the game counts as a draw (a runaway). Random play ends
# a 4-player game of cardroom's own games in 70 to 140 actions.
MAX_ROLLOUT_STEPS = 5_000
# A sub-seed for each sample's play-outs.
_SEED_BOUND = 2**62


@dataclass(frozen=True)
class Level:
    """A named search budget, as a person picks a bot's strength: the engine actions its
    play-outs may take per decision in all."""

    name: str
    actions: int
    description: str


# Tuned on the reference machine (2-core Xeon, python -m bench.search): "search" costs at
# most ~100 ms of CPU per decision (median) in cardroom's games at 2 and 4 players,
# "search-strong" four times that. docs/bots.md has the measured figures.
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("search", 1_500, "looks ahead by playing out many possible deals: hard to beat"),
        Level("search-strong", 6_000, "looks four times further: the strongest, and slower"),
    )
}
DEFAULT_LEVEL = "search"


@dataclass(frozen=True)
class SearchPolicy:
    """A bot seat that searches (``decide``) at one ``level``, its play-outs played by
    ``rollout`` (the game's own policy; None: at random). Unlike a plain policy it reads the
    seat's events and the public options, and it thinks off the request path
    (docs/architecture.md, "Bots that think")."""

    level: Level
    rollout: Rollout | None = None

    @property
    def description(self) -> str:
        return self.level.description

    def decide(
        self,
        game: Game,
        view: View,
        legal: list[Action],
        seen: Sequence[Event],
        options: dict[str, Any],
        rng: Random,
    ) -> Action:
        return decide(
            game, view, legal, seen, options, rng, actions=self.level.actions, rollout=self.rollout
        )


def search_policies(game: Game, rollout: Rollout | None) -> dict[str, SearchPolicy]:
    """The search levels a game gets with no code of its own: every level if it samples its
    hidden state (``Game.samples``), none if it does not."""
    if not game.samples():
        return {}
    return {name: SearchPolicy(level, rollout) for name, level in LEVELS.items()}


def decide(
    game: Game,
    view: View,
    legal: list[Action],
    seen: Sequence[Event],
    options: dict[str, Any],
    rng: Random,
    *,
    actions: int,
    rollout: Rollout | None = None,
) -> Action:
    """One of ``legal`` for the seat ``view["you"]["seat"]`` (module docstring).

    ``seen`` is every event so far as that seat saw it (``redact_event(event, seat)``),
    ``options`` the game's options as every seat sees them (``game.public_options``),
    ``actions`` (at least 1) the engine actions the play-outs may take in all, ``rollout``
    the policy (view, legal, rng) -> action that plays every seat in a play-out (default:
    uniformly at random). Deterministic for a given ``rng`` state.
    """
    if not legal:
        raise ValueError("no legal action to choose from")
    if len(legal) == 1:
        return legal[0]
    if actions < 1:
        raise ValueError(f"actions must be at least 1 (got {actions})")
    you = view.get("you")
    if not you:
        raise ValueError("a spectator's view has no seat to decide for")
    seat: int = you["seat"]
    meanings = Meanings(game, you.get("hand", []))
    candidates: dict[Hashable, Action] = {}
    for action in legal:
        candidates.setdefault(meanings.key(action), action)
    if len(candidates) == 1:
        return legal[0]
    favourite = meanings.key(rollout(view, legal, rng)) if rollout is not None else None
    playing = Playouts(game, rollout, seat)
    totals = dict.fromkeys(candidates, 0.0)
    samples = dict.fromkeys(candidates, 0)
    alive = list(candidates)
    rounds = math.ceil(math.log2(len(alive)))
    while len(alive) > 1:
        share = (actions - playing.spent) / rounds
        start = playing.spent
        while True:
            state = game.sample_state(view, seen, options, rng)
            seed = rng.randrange(_SEED_BOUND)
            for key in alive:
                totals[key] += playing.value(state, candidates[key], seed)
                samples[key] += 1
            if playing.spent - start >= share:
                break
        alive.sort(key=lambda key: (-totals[key] / samples[key], key != favourite))
        alive = alive[: math.ceil(len(alive) / 2)]
        rounds = max(1, rounds - 1)
    return candidates[alive[0]]


class Playouts:
    """The play-outs of one decision, and the engine actions they have taken so far."""

    def __init__(self, game: Game, rollout: Rollout | None, seat: int) -> None:
        self.game = game
        self.rollout = rollout
        self.seat = seat
        self.spent = 0

    def value(self, sample: State, action: Action, seed: int) -> float:
        """The seat's value of playing ``action`` in a copy of ``sample``, then the game to
        its end, every random draw from ``seed``."""
        game, rollout = self.game, self.rollout
        state = game.copy_state(sample)
        game.apply_legal(state, self.seat, action)
        rng = Random(seed)
        players: int = state["players"]
        steps = 1
        while steps < MAX_ROLLOUT_STEPS and not game.is_over(state):
            awaited = game.awaiting(state)
            if not awaited:
                break
            seat = min(awaited)
            legal = game.legal_actions(state, seat)
            if not legal:
                break
            if rollout is None:
                chosen = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
            else:
                chosen = rollout(game.view(state, seat), legal, rng)
            game.apply_legal(state, seat, chosen)
            steps += 1
        self.spent += steps
        if game.is_over(state):
            return game.values(state)[self.seat]
        return 1 / players  # a runaway (or a stuck game) counts as a draw


class Meanings:
    """What a seat's actions mean: their canonical form with every card named by its code,
    read from the seat's hand (module docstring, "Nodes of meaning")."""

    def __init__(self, game: Game, hand: list[Any]) -> None:
        self.game = game
        self.codes = {
            card["id"]: card.get("code", card["id"])
            for card in hand
            if isinstance(card, dict) and "id" in card
        }
        # For each action type, its card fields: (name, whether it lists several cards).
        self.card_fields: dict[str, tuple[tuple[str, bool], ...]] = {
            move.type: tuple(
                (field.name, field.kind == "cards")
                for field in move.fields
                if field.kind in ("card", "cards")
            )
            for move in game.moves
        }

    def key(self, action: Action) -> Hashable:
        kind = action["type"]
        meaning = dict(action)
        codes = self.codes
        for name, many in self.card_fields.get(kind, ()):
            value = meaning.get(name)
            if many and isinstance(value, list):
                meaning[name] = [codes.get(card, card) for card in value]
            elif isinstance(value, str):
                meaning[name] = codes.get(value, value)
        return self.game.moves_by_type[kind].canonical(meaning)
