"""Combinations (EP-7, EP-8): classifying a play and enumerating every legal one.

A combination is a list of hand cards plus at most one Wild token standing for a named
number 1-10 (``wild``; its suit follows from the combination). Both functions here are
pure and work from the codes alone, so ``legal_actions`` and ``apply`` can agree exactly
while each reaches its answer independently.
"""

from __future__ import annotations

from itertools import combinations

from cardroom.games.exact_plays.cards import ORDER, PARSED, SUITS

WILD_MIN = 1
WILD_MAX = 10

Combo = tuple[tuple[str, ...], int | None]


def classify(codes: list[str] | tuple[str, ...], wild: int | None) -> str | None:
    """``"single"``, ``"set"`` or ``"run"`` for a non-empty list of distinct codes plus an
    optional wild number, or ``None`` when the cards form no combination."""
    nums = [PARSED[code][0] for code in codes]
    if wild is not None:
        nums.append(wild)
    if len(nums) == 1:
        return "single"
    distinct = set(nums)
    if len(distinct) == 1:
        return "set"
    if len({PARSED[code][1] for code in codes}) != 1:
        return None
    if len(distinct) == len(nums) and max(nums) - min(nums) == len(nums) - 1:
        return "run"
    return None


def combo_numbers(codes: list[str] | tuple[str, ...], wild: int | None) -> list[int]:
    nums = [PARSED[code][0] for code in codes]
    if wild is not None:
        nums.append(wild)
    return nums


def beats(field_numbers: list[int], numbers: list[int]) -> str | None:
    """``None`` when ``numbers`` may be played on a field of ``field_numbers`` (EP-7),
    else the reason it may not."""
    if not field_numbers:
        return None
    n, m = len(field_numbers), len(numbers)
    if m == n:
        if max(numbers) > max(field_numbers):
            return None
        return (
            f"playing {m} card(s) on {n} needs a number higher than the field's highest "
            f"({max(field_numbers)})"
        )
    if m == n + 1:
        if min(numbers) < min(field_numbers):
            return None
        return (
            f"playing {m} cards on {n} needs a number lower than the field's lowest "
            f"({min(field_numbers)})"
        )
    return f"on a field of {n} card(s) you may play {n} or {n + 1} cards, not {m}"


def all_combos(hand: list[str], with_wild: bool) -> list[Combo]:
    """Every combination the hand can form (field ignored), each once.

    With ``with_wild`` also every (cards, named number) with one Wild token: a set whose
    wild names the cards' number, or a run whose wild fills a gap or extends an end
    (1 and 10 included). The cards of each combination are in canonical order.
    """
    result: list[Combo] = []
    by_number: dict[int, list[str]] = {}
    by_suit: dict[str, dict[int, str]] = {letter: {} for letter in SUITS}
    for code in sorted(hand, key=ORDER.__getitem__):
        num, letter = PARSED[code]
        by_number.setdefault(num, []).append(code)
        by_suit[letter][num] = code

    # singles and sets (a set with a wild may hold a single card: the wild names its number)
    for num, codes in by_number.items():
        for code in codes:
            result.append(((code,), None))
        for size in range(2, len(codes) + 1):
            for subset in combinations(codes, size):
                result.append((subset, None))
        if with_wild:
            for size in range(1, len(codes) + 1):
                for subset in combinations(codes, size):
                    result.append((subset, num))

    # runs: intervals [a, b] of one suit; with a wild, exactly one number of the interval
    # is the wild and every other number is a card of that suit
    for present in by_suit.values():
        if len(present) < (1 if with_wild else 2):
            continue
        low = WILD_MIN if with_wild else 2
        high = WILD_MAX if with_wild else 9
        for a in range(low, high):
            missing: list[int] = []
            for b in range(a, high + 1):
                if b not in present:
                    missing.append(b)
                    if not with_wild or len(missing) > 1:
                        break
                if b == a:
                    continue
                nums = range(a, b + 1)
                if not missing:
                    result.append((tuple(present[x] for x in nums), None))
                    if with_wild:
                        for w in nums:
                            result.append((tuple(present[x] for x in nums if x != w), w))
                elif with_wild:
                    w = missing[0]
                    result.append((tuple(present[x] for x in nums if x != w), w))
    return result


def play_sort_key(combo: Combo) -> tuple[int, tuple[int, ...], int]:
    cards, wild = combo
    return (len(cards) + (wild is not None), tuple(ORDER[c] for c in cards), wild or 0)


def legal_combos(hand: list[str], field_numbers: list[int], with_wild: bool) -> list[Combo]:
    """Every combination of ``hand`` (with a wild when allowed) playable on the field."""
    out = []
    n = len(field_numbers)
    for combo in all_combos(hand, with_wild):
        cards, wild = combo
        size = len(cards) + (wild is not None)
        if n and size not in (n, n + 1):
            continue
        if beats(field_numbers, combo_numbers(cards, wild)) is None:
            out.append(combo)
    out.sort(key=play_sort_key)
    return out
