"""The search bot (cardroom/bots/search.py): Monte Carlo search over states sampled from one
seat's view.

Engine only, seeded. Its decisions are legal and replay from the generator's seed; it
cannot cheat, shown on pairs of real positions that differ only in what the seat cannot see
(other seats' hidden cards, the seed), which give the same decision, while a search handed
the real state tells them apart; it plays whole games of both games against the greedy bots;
and, a smoke test of strength, it beats random play.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from exact_plays_helpers import deck
from exact_plays_helpers import new_game as new_exact_plays

from cardroom.bots import random_policy
from cardroom.bots.search import LEVELS, Level, decide
from cardroom.games.exact_plays.cards import ALL_CODES
from cardroom.games.exact_plays.plugin import plugin as exact_plays
from cardroom.games.mr_toast.plugin import plugin as mr_toast
from cardroom.kit import Game, GamePlugin, redact_event
from cardroom.kit import rng as rngmod

PLUGINS: dict[str, GamePlugin] = {"mr-toast": mr_toast, "exact-plays": exact_plays}
ACTIONS = 300  # a few play-outs a candidate, cheap enough for many positions
# Positions every so many steps: Mr Toast's games are short, and many of its positions offer
# one action only (end the turn); Exact Plays' are longer and dearer to search.
EVERY = {"mr-toast": 3, "exact-plays": 6}


# --- playing ---------------------------------------------------------------------------------


class Played:
    """A real game: its state and every event the engine produced."""

    def __init__(self, game: Game, players: int, seed: int, options: dict[str, Any]) -> None:
        self.game = game
        self.options = game.validate_options(players, options)
        self.state = game.new_game(players, self.options, seed)
        self.events: list[dict[str, Any]] = []

    def act(self, seat: int, action: dict[str, Any]) -> None:
        self.events += self.game.apply(self.state, seat, action)

    def seen(self, seat: int) -> list[dict[str, Any]]:
        return [shown for event in self.events if (shown := redact_event(event, seat)) is not None]

    def decide(self, seat: int, seed: Any, **how: Any) -> dict[str, Any]:
        """The search's decision for ``seat``, from what that seat knows only."""
        game = self.game
        return decide(
            game,
            game.view(self.state, seat),
            game.legal_actions(self.state, seat),
            self.seen(seat),
            game.public_options(self.options),
            random.Random(seed),
            **{"actions": ACTIONS, **how},
        )


def positions(
    plugin: GamePlugin, players: int, seed: int, every: int, options: dict[str, Any] | None = None
) -> Iterator[Played]:
    """A game played by greedy and random moves (the lowest awaited seat), yielded every
    ``every`` steps while it runs."""
    game = plugin.game
    greedy = plugin.policies["greedy"]
    played = Played(game, players, seed, options or {})
    rng = random.Random(seed)
    step = 0
    while game.result(played.state) is None:
        if step % every == every - 1:
            yield played
        seat = min(game.awaiting(played.state))
        legal = game.legal_actions(played.state, seat)
        policy = greedy if rng.random() < 0.7 else random_policy
        played.act(seat, policy(game.view(played.state, seat), legal, rng))
        step += 1


# --- 1. legal and deterministic ---------------------------------------------------------------

SETTINGS = [
    (game_type, players, seed)
    for game_type in PLUGINS
    for players in (2, 3, 4)
    for seed in range(2)
]


@pytest.mark.parametrize(("game_type", "players", "seed"), SETTINGS)
def test_decisions_are_legal_and_the_same_seed_gives_the_same_one(
    game_type: str, players: int, seed: int
) -> None:
    """At positions all through a game, for every awaited seat (not only the lowest: in a
    simultaneous phase any may be asked), with random and greedy rollouts."""
    plugin = PLUGINS[game_type]
    game = plugin.game
    decided = 0
    for played in positions(plugin, players, seed, EVERY[game_type]):
        for seat in sorted(game.awaiting(played.state)):
            legal = game.legal_actions(played.state, seat)
            if len(legal) < 2:
                continue
            for rollout in (None, plugin.policies["greedy"]):
                key = f"{seed}:{len(played.events)}:{seat}"
                action = played.decide(seat, key, rollout=rollout)
                assert action in legal
                assert played.decide(seat, key, rollout=rollout) == action
                decided += 1
    assert decided >= 4


def test_a_single_legal_action_is_returned_at_once_without_a_draw() -> None:
    game = exact_plays.game
    played = Played(game, 4, 0, {})
    only = game.legal_actions(played.state, 2)[:1]
    rng = random.Random(3)
    before = rng.getstate()
    view = game.view(played.state, 2)
    options = game.public_options(played.options)
    assert decide(game, view, only, [], options, rng, actions=50) is only[0]
    assert rng.getstate() == before


def test_no_legal_action_or_no_budget_is_refused() -> None:
    played = Played(exact_plays.game, 2, 0, {})
    game = exact_plays.game
    view = game.view(played.state, 0)
    options = game.public_options(played.options)
    legal = game.legal_actions(played.state, 0)
    with pytest.raises(ValueError, match="no legal action"):
        decide(game, view, [], [], options, random.Random(0), actions=5)
    with pytest.raises(ValueError, match="at least 1"):
        decide(game, view, legal, [], options, random.Random(0), actions=0)


def test_cards_of_one_code_are_one_move() -> None:
    """Mr Toast: two Green 1s in hand score the same; the search treats them as one move
    (module docstring, "Nodes of meaning") and returns one of the caller's own actions."""
    from mr_toast_helpers import Table

    t = Table([["G1", "G1", "G2", "R2", "NW"], ["G3"] * 5], ["G4"])
    legal = t.legal(0)
    ones = [
        a for a in legal if a["type"] == "score" and t.state["codes"][int(a["green"][1:])] == "G1"
    ]
    assert len({a["green"] for a in ones}) == 2
    options = t.game.public_options(t.options)
    action = decide(t.game, t.view(0), legal, [], options, random.Random(1), actions=400)
    assert action in legal
    # choosing between the two Green 1s alone is no choice: every seed gives the first
    only = [a for a in ones if "purple" not in a]
    for seed in range(8):
        assert (
            decide(t.game, t.view(0), only, [], options, random.Random(seed), actions=30)
            is (only[0])
        )


def test_values_a_win_a_shared_win_and_a_game_without_winners() -> None:
    """Game.values, the search's score of a finished game (kit/base.py)."""
    game = exact_plays.game

    def values(winners: list[int], players: int) -> list[float]:
        return game.values({"players": players, "result": {"winners": winners}})

    assert values([2], 3) == [0.0, 0.0, 1.0]
    assert values([0, 3], 4) == [0.5, 0.0, 0.0, 0.5]
    assert values([], 4) == [0.25] * 4


def test_the_levels() -> None:
    assert set(LEVELS) >= {"search", "search-strong"}
    assert all(isinstance(level, Level) and level.name == name for name, level in LEVELS.items())
    assert LEVELS["search-strong"].actions >= 3 * LEVELS["search"].actions
    assert all(level.description and level.actions >= 1 for level in LEVELS.values())


# --- 2. it cannot cheat ----------------------------------------------------------------------


def words(value: Any) -> set[str]:
    """Every string in a JSON value (keys aside): the card ids the events named included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(words(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(words(item) for item in value))
    return set()


def rearranged(played: Played, seat: int, shuffle_seed: int) -> dict[str, Any] | None:
    """A copy of the real state in which the cards ``seat`` cannot see and never saw (in
    other hands, the draw pile, the cards set aside) trade places, and the seed differs: a
    state the seat cannot tell from the real one. None if nothing could move."""
    game, state = played.game, played.state
    twin = copy.deepcopy(state)
    movable_places = [hand for other, hand in enumerate(twin["hands"]) if other != seat]
    movable_places.append(twin["draw_pile"])
    if game.game_type == "exact-plays" and state["players"] == 3:
        movable_places.append(twin["set_aside"])  # 2 players: the removed suit stays whole
    hidden = {str(card) for card in game.hidden_cards(state, seat)}
    never_seen = hidden - words(played.seen(seat))
    card_id = (lambda card: f"c{card}") if game.game_type == "mr-toast" else str
    movable = [card for place in movable_places for card in place if card_id(card) in never_seen]
    shuffled = list(movable)
    random.Random(shuffle_seed).shuffle(shuffled)
    if shuffled == movable:
        return None
    swap = dict(zip(movable, shuffled, strict=True))
    for place in movable_places:
        place[:] = [swap.get(card, card) for card in place]
    if game.game_type == "exact-plays":
        for hand in twin["hands"]:
            hand.sort(key=ALL_CODES.index)
    twin["rng"] = rngmod.new_rng(state["rng"]["seed"] + 1)
    return twin


class Peeking:
    """A game whose "sampler" hands the search the real state: a search that cheats. The
    control that shows the twins below would catch one."""

    def __init__(self, game: Game, state: dict[str, Any]) -> None:
        self._game = game
        self._state = state

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def sample_state(self, view: Any, seen: Any, options: Any, rng: Any) -> dict[str, Any]:
        return copy.deepcopy(self._state)


@pytest.mark.parametrize("game_type", list(PLUGINS))
def test_positions_that_differ_only_out_of_sight_give_the_same_decision(game_type: str) -> None:
    """Real positions and twins of them in which every card the seat cannot see and never
    saw has moved (other hands, draw pile) and the seed differs: the seat's view and events
    are the same, so is the decision for every generator seed. A search that peeks at the
    real state decides differently on some of the same twins."""
    plugin = PLUGINS[game_type]
    game = plugin.game
    greedy = plugin.policies["greedy"]
    compared = peeked_apart = 0
    for players, seed in ((2, 11), (3, 12), (4, 13)):
        for played in positions(plugin, players, seed, EVERY[game_type]):
            for seat in sorted(game.awaiting(played.state)):
                legal = game.legal_actions(played.state, seat)
                twin = rearranged(played, seat, seed)
                if len(legal) < 2 or twin is None:
                    continue
                assert twin != played.state
                view = game.view(played.state, seat)
                assert game.view(twin, seat) == view
                assert game.legal_actions(twin, seat) == legal
                seen = played.seen(seat)  # the same events led to both (none shows a moved card)
                options = game.public_options(played.options)
                for decision_seed in range(2):
                    real = decide(
                        game,
                        view,
                        legal,
                        seen,
                        options,
                        random.Random(decision_seed),
                        actions=ACTIONS,
                        rollout=greedy,
                    )
                    other = decide(
                        game,
                        game.view(twin, seat),
                        legal,
                        seen,
                        options,
                        random.Random(decision_seed),
                        actions=ACTIONS,
                        rollout=greedy,
                    )
                    assert real == other
                    compared += 1
                peeks = [
                    decide(
                        Peeking(game, truth),
                        view,
                        legal,
                        seen,
                        options,
                        random.Random(0),
                        actions=ACTIONS,
                    )
                    for truth in (played.state, twin)
                ]
                peeked_apart += peeks[0] != peeks[1]
    assert compared >= 40
    assert peeked_apart >= 5


def twin_exact_plays_games() -> tuple[Played, Played]:
    """Two 2-player Exact Plays games dealt from different seeds and decks, seat 0 holding
    the same hand and seeing the same top card of the draw pile; the removed suit (acorn or
    bolt), and so seat 1's hand and the rest of the pile, differ."""
    own = ["2M", "3M", "4M", "5M", "2S", "3S", "4S", "5S"]
    games = []
    for seed, removed in ((11, "A"), (99, "B")):
        played = Played(exact_plays.game, 2, seed, {})
        order = deck(2, {0: own}, draw=["9S"], removed=removed)
        played.state = new_exact_plays(2, None, seed=seed, decks=[order])
        played.options = played.state["options"]
        games.append(played)
    return games[0], games[1]


def test_twin_games_played_alike_give_the_same_decisions() -> None:
    """Two real games, played with the same actions, that differ only in what seat 0 cannot
    see: at every step seat 0's view and events agree, and so do its decisions."""
    a, b = twin_exact_plays_games()
    assert a.state["hands"][1] != b.state["hands"][1]
    assert a.state["set_aside"] != b.state["set_aside"]
    script = [
        (1, {"type": "declare", "tokens": 0}),
        (0, {"type": "declare", "tokens": 3}),
        (0, {"type": "draw"}),  # both draw the 9S
        (1, {"type": "pass"}),
        (0, {"type": "play", "cards": ["2M", "3M", "4M", "5M"]}),
        (1, {"type": "pass"}),
    ]
    checked = 0
    for seat, action in script:
        game = a.game
        assert game.view(a.state, 0) == game.view(b.state, 0)
        assert a.seen(0) == b.seen(0)
        if 0 in game.awaiting(a.state) and len(game.legal_actions(a.state, 0)) > 1:
            for decision_seed in range(3):
                for rollout in (None, exact_plays.policies["greedy"]):
                    how = {"rollout": rollout, "actions": 200}
                    assert a.decide(0, decision_seed, **how) == b.decide(0, decision_seed, **how)
                    checked += 1
        a.act(seat, action)
        b.act(seat, action)
    assert checked >= 12


# --- 3. whole games --------------------------------------------------------------------------


def play_out(plugin: GamePlugin, players: int, seed: int, searcher: int, **how: Any) -> dict:
    """A whole game: the search bot in seat ``searcher``, greedy bots in the others."""
    game = plugin.game
    greedy = plugin.policies["greedy"]
    played = Played(game, players, seed, {})
    rng = random.Random(seed)
    for step in range(5_000):
        if game.result(played.state) is not None:
            break
        seat = min(game.awaiting(played.state))
        legal = game.legal_actions(played.state, seat)
        if seat == searcher:
            action = played.decide(seat, f"{seed}:{step}", **how)
            assert action in legal
        else:
            action = greedy(game.view(played.state, seat), legal, rng)
        played.act(seat, action)
    result = game.result(played.state)
    assert result is not None, "the game did not end"
    return result


@pytest.mark.parametrize(
    ("game_type", "players", "seed"),
    [("mr-toast", 2, 1), ("mr-toast", 4, 2), ("exact-plays", 2, 3), ("exact-plays", 3, 4)],
)
def test_it_plays_whole_games_against_greedy_bots(game_type: str, players: int, seed: int) -> None:
    plugin = PLUGINS[game_type]
    result = play_out(
        plugin, players, seed, seed % players, actions=200, rollout=plugin.policies["greedy"]
    )
    assert result["winners"]


# --- 4. strength smoke -----------------------------------------------------------------------


def test_it_beats_random_play_at_a_low_budget() -> None:
    """Not a benchmark (that is bench/search.py): 20 two-player Exact Plays games against a
    random player, seats alternated, a budget of 300 actions with greedy play-outs (as the
    levels are meant to be played). Random play would win about 10; the search wins most."""
    game = exact_plays.game
    wins = 0
    for index in range(20):
        searcher = index % 2
        played = Played(game, 2, 1_000 + index, {})
        rng = random.Random(index)
        while game.result(played.state) is None:
            seat = min(game.awaiting(played.state))
            legal = game.legal_actions(played.state, seat)
            if seat == searcher:
                action = played.decide(
                    seat, f"{index}:{len(played.events)}", rollout=exact_plays.policies["greedy"]
                )
            else:
                action = random_policy(game.view(played.state, seat), legal, rng)
            played.act(seat, action)
        wins += searcher in game.result(played.state)["winners"]
    assert wins >= 15, f"the search won {wins} of 20 games against random play"
