"""Exact Plays policies (see cardroom.bots): ``greedy``.

``greedy`` declares the fewest plays its hand needs (a minimum split into singles, sets and
runs; in simulations declaring more or fewer did worse), then on each turn scores every
legal action by the penalty it expects to be left with afterwards (EP-14): cards it can no
longer shed, a Play token it cannot spend, a Wild token it cannot use, and a small risk
term for every card and token still to get rid of. It never looks at anything but its own view.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Any

from cardroom.kit.rng import Random

Action = dict[str, Any]

# how much each unit still to shed weighs: the round may end before we get there
_CARD_RISK = 0.25
_TOKEN_RISK = 1.5
_AVERAGE_DRAW = 5.5


@lru_cache(maxsize=256)
def _parse(code: str) -> tuple[int, str]:
    return int(code[0]), code[1]


@lru_cache(maxsize=1 << 16)
def min_plays(hand: tuple[str, ...]) -> int:
    """The fewest combinations (single / set / run) that split ``hand`` exactly.

    ``hand`` is sorted by number; the lowest card is in some combination, and a run holding
    it must start at it, so trying each such combination is exhaustive.
    """
    if not hand:
        return 0
    first, rest = hand[0], hand[1:]
    number, suit = _parse(first)
    best = 1 + min_plays(rest)
    same = [c for c in rest if _parse(c)[0] == number]
    for size in range(1, len(same) + 1):
        for subset in combinations(same, size):
            left = tuple(c for c in rest if c not in subset)
            best = min(best, 1 + min_plays(left))
    run: list[str] = []
    nxt = number + 1
    while f"{nxt}{suit}" in rest:
        run.append(f"{nxt}{suit}")
        left = tuple(c for c in rest if c not in run)
        best = min(best, 1 + min_plays(left))
        nxt += 1
    return best


def _key(hand: list[str]) -> tuple[str, ...]:
    return tuple(sorted(hand, key=_parse))


def _expected_cost(size: int, plays_needed: int, points: float, play: int, wild: int) -> float:
    """Rough expected penalty for a hand (size, fewest plays, distinct-number points) held
    with ``play`` Play and ``wild`` Wild tokens."""
    if size == 0:
        return 10.0 * (play > 0) + 10.0 * (wild > 0)
    if play == 0:
        return points + 10.0 * (wild > 0)
    cost = 0.0
    if wild > min(play, size):
        cost += 10.0  # a Wild token that no play will carry
    if plays_needed > play:
        cost += 4.0 * (plays_needed - play)  # cards we will not be able to shed
    if play > size:
        cost += 8.0  # a Play token too many (switching one to Wild may still save it)
    return cost + _CARD_RISK * points + _TOKEN_RISK * (play + wild)


def _hand_cost(hand: list[str], play: int, wild: int) -> float:
    return _sorted_hand_cost(_key(hand), play, wild)


# Search plays many games with this policy, and hands recur: a cache keeps it cheap.
@lru_cache(maxsize=1 << 16)
def _sorted_hand_cost(key: tuple[str, ...], play: int, wild: int) -> float:
    points = float(sum({_parse(c)[0] for c in key}))
    return _expected_cost(len(key), min_plays(key), points, play, wild)


def declaration(hand: list[str]) -> int:
    """The fewest plays this hand needs (0-10)."""
    if not hand:
        return 0
    return max(1, min(10, min_plays(_key(hand))))


def _score(action: Action, hand: list[str], play: int, wild: int) -> float:
    kind = action["type"]
    if kind == "play":
        played = set(action["cards"])
        left = [c for c in hand if c not in played]
        used_wild = 1 if action.get("wild") is not None else 0
        # a small bonus per card keeps the tempo (and sheds before the round ends)
        return -_hand_cost(left, play - 1, wild - used_wild) + 0.3 * len(played)
    if kind == "draw":
        key = _key(hand)
        points = sum({_parse(c)[0] for c in key}) + _AVERAGE_DRAW / 2
        cost = _expected_cost(len(key) + 1, min_plays(key) + 1, points, play, wild)
        return -cost - 0.5
    switch = action.get("switch")
    if switch == "to_wild":
        play, wild = play - 1, wild + 1
    elif switch == "to_play":
        play, wild = play + 1, wild - 1
    return -_hand_cost(hand, play, wild) - 0.2


def greedy(view: dict[str, Any], legal: list[Action], rng: Random) -> Action:
    """A sensible Exact Plays player (see the module docstring)."""
    if not legal:
        raise ValueError("no legal action to choose from")
    you = view.get("you") or {}
    hand = [c["code"] if isinstance(c, dict) else c for c in you.get("hand", [])]
    kinds = {a["type"] for a in legal}
    if "declare" in kinds:
        want = declaration(hand)
        for action in legal:
            if action["type"] == "declare" and action.get("tokens") == want:
                return action
        return legal[0]
    if kinds == {"rps"}:
        return rng.choice(legal)
    play = int(you.get("play_tokens", 0))
    wild = int(you.get("wild_tokens", 0))
    best: Action | None = None
    best_score = float("-inf")
    for action in legal:
        score = _score(action, hand, play, wild)
        if score > best_score:
            best, best_score = action, score
    assert best is not None
    return best
