"""A bot that searches, seeing only its own seat: single-observer information-set Monte Carlo
tree search with determinisation (SO-ISMCTS; Cowling, Powley & Whitehouse, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 2012), guided by a policy when it is given one.

``decide`` grows one tree over the seat's *information set*, not over one guessed state.
Each iteration:

1. **Determinise**: draw a full state consistent with what the seat knows
   (``Game.sample_state`` over its view, the events as it saw them and the public options).
   The draw is fresh every iteration, so no guess about the hidden cards is trusted more than
   another, and the search cannot read what the seat may not see: it is never given the real
   state, only ``view``, ``seen`` and ``options``. The sample is ours to play in place.
2. **Select**: from the root, in the sampled state, take the acting seat's legal actions; the
   node's children among them are *available* this time (each child counts how often it
   was). Follow the available child with the best UCB1 for the acting seat,
   ``mean + c * sqrt(ln(availability) / visits)``: the paper's ISMCTS, where a child is
   compared with how often it *could* have been chosen, not with how often its parent was
   visited (an action only some deals allow is not punished for the deals that do not).
3. **Expand** one untried action when the node may grow (below), apply it.
4. **Simulate** to the end with the rollout policy, every seat playing from its own view of
   the sampled state (the default: a uniformly random legal action, drawn without building a
   view it would not read). A game still running after ``MAX_ROLLOUT_STEPS`` actions counts
   as a draw (every seat ``1/players``).
5. **Backpropagate** a value per seat: a win 1, a win shared by ``k`` seats ``1/k``, else 0.
   Each node is credited with the value of the seat that acts *into* it, so every seat
   chooses by its own interest (max-n, not paranoid): nodes of every seat are in the tree.

**Guided by the rollout policy.** With the default random rollout the search is the paper's
plain ISMCTS: a node expands every available untried action (in random order) before UCB1
chooses among its children. Given a policy (a game's greedy bot), the search also uses it as
a prior: at each node of the descent the policy names its move for the acting seat
(reading that seat's view of the sample), and

- *expansion* tries the policy's move first, then the others in random order;
- *progressive widening*: a node keeps to ``WIDENING * visits ** WIDENING_POWER`` children
  (at least one available), so a few iterations are not spread over a dozen bids or forty
  plays, most of them poor;
- *progressive bias* (Chaslot et al., "Progressive Strategies for Monte-Carlo Tree Search",
  2008): the policy's move gets ``BIAS / (visits + 1)`` on top of its UCB1 score, a head start
  worth about two wins that fades as the move's own results come in.

So the search starts from the policy's move and leaves it only for one that did better in
the simulations. At the budgets a bot seat can afford (a few dozen iterations: the engines'
own moves are most of the cost), plain ISMCTS spends its iterations trying every action once,
for every seat, and learns little from a handful of samples each: against cardroom's greedy
bots it fell short of chance in three settings of four, with random rollouts and with greedy
ones alike; the guided search won more than chance in all four at the same CPU, beyond the
95 % interval in two (bench/search.py's docstring has the figures).

Other choices that fit these games:

- **Who acts in the tree.** The root is always this seat's decision (the caller asks because
  the game awaits it; in a simultaneous phase or a reaction window other seats may be awaited
  too, but nobody else's answer is known to us now). Below it, the lowest awaited seat acts,
  as the server's bot loop plays (``cardroom.bots.next_bot_seat``): in a simultaneous phase
  the awaited seats answer in seat order, and out-of-turn reactions (a card that cancels
  another) are just other seats' decisions. Only awaited seats act, so nobody changes an
  answer in a loop.
- **Nodes are keyed by (acting seat, what the action means)**: the action's canonical form
  (``Move.canonical``) with every card named by its ``code`` instead of its ``id``, read from
  the acting seat's hand in the sampled state. An opponent's hidden cards are dealt anew in
  every determinisation, and where a game numbers its cards the id says nothing about the
  card (``c17`` is a 5 in one sample and a 2 in the next): keyed by id, an opponent's "plays
  a 5" would be split over dozens of children that never share statistics. And two cards of
  one code in a hand are the same move: merging them shrinks the branching. (Where a card's
  id is its code, nothing changes.) The kit puts a card on the wire as
  ``{"id", "code", ...}`` (kit/shapes.py); a game whose cards of one code differ in play
  would need ids in its codes.
- **The final choice** is the most visited root action among ``legal`` (ties: the better
  mean, then ``legal``'s order): visits are the robust statistic. The caller's own action
  object is returned. A single legal action is returned at once, with no search and no draw.
- **The budget is iterations**, never time: a decision is a pure function of its arguments
  and the generator's state (no clock, no I/O; every draw from ``rng``), so a seeded game
  replays and the same seed gives the same decision.
- **The exploration constant** ``c = 0.7`` is the paper's, for values in [0, 1].

What it does not do, knowingly: in a single-observer tree an opponent's node gathers
statistics over deals drawn from *our* point of view, so opponents are modelled as if they
knew our hand (the paper's MO-ISMCTS separates the trees, at a cost per iteration these
budgets cannot afford); and a seat acting later in a simultaneous phase chooses as if it saw
the earlier seats' answers (the tree orders them). Both make the search somewhat cautious,
never illegal or clairvoyant about the real deal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from cardroom.kit import Action, Event, Game, Random, State, View

# A policy: (view, legal, rng) -> one of legal (cardroom.kit.Policy).
Rollout = Callable[[View, list[Action], Random], Action]

# UCB1's exploration constant for values in [0, 1] (the paper's 0.7).
EXPLORATION = 0.7
# With a guiding policy: its move's head start (in wins), and how many children a node may
# have after n visits, WIDENING * n ** WIDENING_POWER. Tuned with bench/search.py on 40 to 200
# games a setting: the bias alone or the widening alone did worse than both together; biases
# of 0.5, 1 and 2 and powers of 0.3 and 0.5 were within the noise of one another.
BIAS = 2.0
WIDENING = 1.0
WIDENING_POWER = 0.5
# Actions a simulation may take before the game counts as a draw (a runaway). Random play
# ends a 4-player game of cardroom's own games in 70 to 140 actions.
MAX_ROLLOUT_STEPS = 5_000


@dataclass(frozen=True)
class Level:
    """A named search budget, as a person picks a bot's strength."""

    name: str
    iterations: int
    description: str


# Tuned on the reference machine with the game's greedy policy as the rollout
# (bench/search.py): "search" costs at most ~100 ms of CPU per decision (median; 19-95 ms
# over cardroom's games at 2 and 4 players), "search-strong" five times that (92-446 ms).
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("search", 20, "thinks a few moves ahead"),
        Level("search-strong", 100, "thinks harder, and takes its time"),
    )
}
DEFAULT_LEVEL = "search"

Key = tuple[int, Hashable]


class _Node:
    """One decision in the tree: the seat that acted into it, its visits, how often it was
    available when its parent's seat chose, and the sum of that seat's values through it."""

    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.available = 0
        self.total = 0.0
        self.children: dict[Key, _Node] = {}


def decide(
    game: Game,
    view: View,
    legal: list[Action],
    seen: Sequence[Event],
    options: dict[str, Any],
    rng: Random,
    *,
    iterations: int,
    rollout: Rollout | None = None,
    exploration: float = EXPLORATION,
) -> Action:
    """One of ``legal`` for the seat ``view["you"]["seat"]``, by ISMCTS over states sampled
    from (view, seen, options); ``rollout`` a policy (view, legal, rng) -> action that
    plays every seat to the end in a simulation (default: the random policy), reading
    each seat's view of the sampled state, and guides the tree (module docstring).

    ``seen`` is every event so far as that seat saw it (``redact_event(event, seat)``),
    ``options`` the game's options as every seat sees them (``game.public_options``).
    ``iterations`` (at least 1) is the number of determinisations played out; ``exploration``
    is UCB1's constant. Deterministic for a given ``rng`` state.
    """
    if not legal:
        raise ValueError("no legal action to choose from")
    if len(legal) == 1:
        return legal[0]
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1 (got {iterations})")
    you = view.get("you")
    if not you:
        raise ValueError("a spectator's view has no seat to decide for")
    seat: int = you["seat"]
    search = _Search(game, rollout, exploration, rng)
    root = _Node(seat)
    for _ in range(iterations):
        search.iterate(root, game.sample_state(view, seen, options, rng), seat)
    return search.choice(root, seat, legal, view)


class _Search:
    """What every iteration of one decision shares."""

    def __init__(
        self, game: Game, rollout: Rollout | None, exploration: float, rng: Random
    ) -> None:
        self.game = game
        self.rollout = rollout
        self.exploration = exploration
        self.rng = rng
        # For each action type, its card fields: (name, whether it lists several cards).
        self.card_fields: dict[str, tuple[tuple[str, bool], ...]] = {
            move.type: tuple(
                (field.name, field.kind == "cards")
                for field in move.fields
                if field.kind in ("card", "cards")
            )
            for move in game.moves
        }

    # --- one iteration -----------------------------------------------------------------

    def iterate(self, root: _Node, state: State, me: int) -> None:
        """Select, expand, simulate and backpropagate once, on the determinisation ``state``."""
        game, rng, guide = self.game, self.rng, self.rollout
        node = root
        path: list[_Node] = []
        seat = me  # the root is this seat's decision, whoever else the game awaits
        while True:
            if node is not root:
                if game.is_over(state):
                    break
                awaited = game.awaiting(state)
                if not awaited:
                    break
                seat = min(awaited)
            actions = game.legal_actions(state, seat)
            if not actions:
                break
            choices, codes = self.keyed(state, seat, actions)
            pick = None
            if guide is not None:
                pick = self.key(seat, guide(game.view(state, seat), actions, rng), codes)
            children = node.children
            untried: list[Key] = []
            for key in choices:
                child = children.get(key)
                if child is None:
                    untried.append(key)
                else:
                    child.available += 1
            tried = len(choices) - len(untried)
            if untried and (tried == 0 or tried < self.room(node.visits + 1)):
                if pick in choices and pick not in children:
                    key = pick
                elif len(untried) > 1:
                    key = untried[rng.randrange(len(untried))]
                else:
                    key = untried[0]
                child = children[key] = _Node(seat)
                child.available = 1
                game.apply(state, seat, choices[key])
                path.append(child)
                break
            key = self.select(children, choices, pick)
            node = children[key]
            game.apply(state, seat, choices[key])
            path.append(node)
        values = self.simulate(state)
        root.visits += 1
        for visited in path:
            visited.visits += 1
            visited.total += values[visited.seat]

    def room(self, visits: int) -> float:
        """How many children a node visited ``visits`` times may have: all of them without a
        guiding policy, else fewer (progressive widening)."""
        if self.rollout is None:
            return math.inf
        return WIDENING * visits**WIDENING_POWER

    def select(self, children: dict[Key, _Node], choices: dict[Key, Action], pick: Any) -> Key:
        """The available child with the best score for the seat choosing (the first on
        ties): UCB1, plus the fading bias of the guiding policy's move."""
        best_key: Key | None = None
        best = -math.inf
        c = self.exploration
        for key in choices:
            child = children.get(key)
            if child is None:
                continue
            score = child.total / child.visits + c * math.sqrt(
                math.log(child.available) / child.visits
            )
            if key == pick:
                score += BIAS / (child.visits + 1)
            if score > best:
                best, best_key = score, key
        assert best_key is not None
        return best_key

    def simulate(self, state: State) -> list[float]:
        """Play ``state`` to its end with the rollout policy; each seat's value."""
        game, rng, rollout = self.game, self.rng, self.rollout
        players: int = state["players"]
        for _ in range(MAX_ROLLOUT_STEPS):
            if game.is_over(state):
                break
            awaited = game.awaiting(state)
            if not awaited:
                break
            seat = min(awaited)
            actions = game.legal_actions(state, seat)
            if not actions:
                break
            if rollout is None:
                action = actions[rng.randrange(len(actions))] if len(actions) > 1 else actions[0]
            else:
                action = rollout(game.view(state, seat), actions, rng)
            game.apply(state, seat, action)
        if game.is_over(state):
            return outcome(game.result(state), players)
        return [1 / players] * players  # a runaway (or a stuck game) counts as a draw

    # --- keys and the final choice ------------------------------------------------------

    def keyed(
        self, state: State, seat: int, actions: list[Action]
    ) -> tuple[dict[Key, Action], dict[str, str] | None]:
        """``actions`` by what they mean, the first of each meaning (module docstring, "Nodes
        are keyed"); and the seat's hand codes, if any action names a card."""
        codes: dict[str, str] | None = None
        keyed: dict[Key, Action] = {}
        for action in actions:
            if codes is None and self.card_fields.get(action["type"]):
                private = self.game.private_view(state, seat) or {}
                codes = _codes(private.get("hand", []))
            keyed.setdefault(self.key(seat, action, codes), action)
        return keyed, codes

    def key(self, seat: int, action: Action, codes: dict[str, str] | None) -> Key:
        """What ``action`` of ``seat`` means: its canonical form, cards named by code."""
        kind = action["type"]
        fields = self.card_fields.get(kind)
        meaning = _by_code(action, fields, codes) if fields and codes else action
        return (seat, self.game.moves_by_type[kind].canonical(meaning))

    def choice(self, root: _Node, seat: int, legal: list[Action], view: View) -> Action:
        """The most visited root action among ``legal`` (ties: better mean, then order)."""
        codes = _codes(view["you"].get("hand", []))
        best: Action = legal[0]
        best_rank: tuple[int, float] = (-1, -math.inf)
        for action in legal:
            child = root.children.get(self.key(seat, action, codes))
            if child is None or child.visits == 0:
                continue
            rank = (child.visits, child.total / child.visits)
            if rank > best_rank:
                best, best_rank = action, rank
        return best


def outcome(result: dict[str, Any] | None, players: int) -> list[float]:
    """Each seat's value of a finished game: 1 for a win, ``1/k`` for a win shared by ``k``
    seats, else 0 (a game without winners: a draw, ``1/players`` each)."""
    winners = (result or {}).get("winners") or []
    if not winners:
        return [1 / players] * players
    share = 1 / len(winners)
    values = [0.0] * players
    for winner in winners:
        values[winner] = share
    return values


def _codes(hand: list[Any]) -> dict[str, str]:
    """Each card id of a hand as a view shows it, and its code."""
    return {
        card["id"]: card.get("code", card["id"])
        for card in hand
        if isinstance(card, dict) and "id" in card
    }


def _by_code(action: Action, fields: tuple[tuple[str, bool], ...], codes: dict[str, str]) -> Action:
    """``action`` with each card id in its card fields replaced by that card's code."""
    meaning = dict(action)
    for name, many in fields:
        value = meaning.get(name)
        if value is None:
            continue
        if many and isinstance(value, list):
            meaning[name] = [codes.get(card, card) for card in value]
        elif isinstance(value, str):
            meaning[name] = codes.get(value, value)
    return meaning
