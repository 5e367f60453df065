"""Mr Toast policies. ``greedy`` plays like a sensible person, from its seat's view only."""

from __future__ import annotations

from typing import Any

from cardroom.kit.rng import Random

WIN_SCORE = 15
THREAT = 10  # an opponent with this many points gets our chores before we score


def greedy(view: dict[str, Any], legal: list[dict[str, Any]], rng: Random) -> dict[str, Any]:
    """One of ``legal``: win if it can, score big, clear or trash chores, hand chores and
    Take a Breaks to the leader, Find a Penny, cancel opponents' blue cards that hurt it."""
    if len(legal) == 1:
        return legal[0]
    you = view["you"]
    me = you["seat"]
    cards = {card["id"]: card for card in you["hand"]}
    scores = view["scores"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)

    if "allow" in by_type:
        return _react(view, me, scores, by_type)

    def value(card_id: str | None) -> int:
        return cards[card_id]["value"] if card_id is not None else 0

    def code(card_id: str) -> str:
        return cards[card_id]["code"]

    def leader_rank(seat: int) -> tuple[int, int]:
        return (scores[seat], -seat)

    gives = by_type.get("give_red", [])
    best_give = max(gives, key=lambda a: leader_rank(a["target"])) if gives else None

    # Step 2: win; else stop an opponent close to winning with a chore; else score the most.
    scores_options = by_type.get("score", [])
    if scores_options:
        exact = view["mode"] == "exact"

        def points(action: dict[str, Any]) -> int:
            return value(action["green"]) + value(action.get("purple"))

        for action in scores_options:
            total = scores[me] + points(action)
            if total == WIN_SCORE or (not exact and total >= WIN_SCORE):
                return action
        if best_give is not None and scores[best_give["target"]] >= THREAT:
            return best_give
        if not exact:
            return max(scores_options, key=lambda a: (points(a), "purple" not in a))

        def worth(action: dict[str, Any]) -> tuple[int, int, bool]:
            # Exact mode: prefer to be left with a finish we already hold, and avoid being
            # left needing 1 or 2 (only a few cards make that).
            left = WIN_SCORE - scores[me] - points(action)
            rest = [
                c for c in you["hand"] if c["id"] not in (action["green"], action.get("purple"))
            ]
            finish = _can_make(rest, left)
            rating = points(action) + (10 if finish else 0)
            if not finish:
                rating -= {1: 8, 2: 4}.get(left, 0)
            return (rating, points(action), "purple" not in action)

        best = max(scores_options, key=worth)
        if worth(best)[0] > 0:
            return best

    blues = by_type.get("play_blue", [])
    trash = [a for a in blues if code(a["card"]) == "IT"]

    clears = by_type.get("clear_red", [])
    if clears:
        if trash:
            # Hand a chore on first if we can; In the Trash removes ours in step 3.
            return best_give or trash[0]

        def cost(action: dict[str, Any]) -> tuple[int, int]:
            spent = sum(value(g) for g in action["greens"]) + value(action.get("purple"))
            return (spent, len(action["greens"]))

        return min(clears, key=cost)
    if best_give is not None:
        return best_give

    # Step 3 (or step 2 with nothing better): blue cards.
    if trash:
        return trash[0]
    pennies = [a for a in blues if code(a["card"]) == "FP"]
    if pennies:
        return pennies[0]
    breaks = [a for a in blues if code(a["card"]) == "TB"]
    if breaks:
        return max(breaks, key=lambda a: leader_rank(a["target"]))
    for action in legal:
        if action["type"] == "end_turn":
            return action
    return rng.choice(legal)


def _can_make(hand: list[dict[str, Any]], points: int) -> bool:
    """Whether one green (plus at most one purple) in ``hand`` scores exactly ``points``."""
    greens = {c["value"] for c in hand if c["colour"] == "green"}
    purples = {0} | {c["value"] for c in hand if c["colour"] == "purple"}
    return any(g + p == points for g in greens for p in purples)


def _react(
    view: dict[str, Any],
    me: int,
    scores: list[int],
    by_type: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    """Answer a No Way window: fight for the outcome we want, else allow."""
    allow = by_type["allow"][0]
    pending = view.get("pending")
    no_ways = by_type.get("no_way", [])
    if not pending or not no_ways:
        return allow
    owner = pending["seat"]
    code = pending["card"]["code"]
    target = pending.get("target")
    happens = pending.get("outcome", "happens") == "happens"
    top = max(scores)
    want: bool | None = None
    if owner == me:
        want = True
    elif code == "TB" and target == me:
        want = False
    elif scores[owner] == top and scores[owner] > scores[me]:
        want = False  # it helps the leader
    elif code == "TB" and target is not None and scores[target] == top and top > scores[me]:
        want = True  # it slows the leader down
    if want is None or want == happens:
        return allow
    return no_ways[0]
