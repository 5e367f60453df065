"""Turn clocks: the options every game has, and the pure bookkeeping behind them.

A game with ``turn_seconds`` or ``bank_seconds`` set gives every seat a clock
(games/*/rules.md, MT-17 and EP-19). A seat's *wait* starts when the game starts waiting for it
(it enters ``Game.awaiting``, or the game's ``turn_marker`` changes while it is awaited: a new
turn, a new No Way window, a new throw) and ends when it leaves. Each wait may last
``turn_seconds`` for free, then eats the seat's bank (``bank_seconds``, chess style, never
refilled). When both are spent the seat *times out*: the engine plays its default move
(``Game.timeout_action``) for it, a logged step like any other, so a replay times out exactly
where live play did.

A seat that timed out ``away_after`` waits in a row is *away*: the game no longer waits for
it. Without ``away_bot`` its waits time out at once (its default moves keep the game going);
with ``away_bot`` the clock leaves it alone and the server's bot of that policy plays it.
Either way it is back when its owner says so (``Game.seat_back``). Bot seats have no clock.

Time is in whole milliseconds, as the log carries it (``cardroom.table.steps``). The clock's part of
the state, ``state["clock"]``::

    turn_ms, bank_ms   the allowance of a wait and the initial bank (0 when not set)
    away_bot           whether a bot plays away seats (the policy is the server's business)
    away_after         how many timeouts in a row make a seat away
    since              per seat: when its current wait began (ms), or null
    bank               per seat: the bank left (ms)
    missed             per seat: timeouts in a row (an action of its own resets it)
    away               per seat: whether it is away
    exempt             per seat: a bot seat (no clock)
    marker             the turn marker when the clock last looked
"""

from __future__ import annotations

from typing import Any

from cardroom.kit.errors import InvalidOptions

# The clock's options, added to every game's own (their OptionSpec is built in base.py).
CLOCK_OPTION_DOCS: tuple[tuple[str, str, Any, str, dict[str, Any]], ...] = (
    (
        "turn_seconds",
        "number",
        None,
        "Turn clock: seconds each seat has for each wait (a turn, or any other answer the "
        "game waits for) before its bank is used. When a seat's time runs out the game "
        "plays its default move for it (timed_out); the rules page lists them. null: no "
        "clock (unless bank_seconds is set).",
        {"minimum": 1, "maximum": 604800, "nullable": True},
    ),
    (
        "bank_seconds",
        "number",
        None,
        "Chess-style bank: extra seconds per seat for the whole game, used once a wait "
        "goes past turn_seconds; never refilled. null: no bank.",
        {"minimum": 0, "maximum": 604800, "nullable": True},
    ),
    (
        "away_after",
        "integer",
        2,
        "A seat that timed out this many waits in a row is away: the game stops waiting "
        "for it (its default moves are played at once, or away_bot plays it) until its "
        "owner comes back (POST /v1/games/{id}/back). Only with a clock.",
        {"minimum": 1, "maximum": 100},
    ),
    (
        "away_bot",
        "string",
        None,
        "The bot policy that plays an away seat until its owner comes back; null: the "
        "seat's default moves are played at once instead.",
        {"nullable": True},
    ),
)
CLOCK_OPTIONS = tuple(name for name, *_ in CLOCK_OPTION_DOCS)


def clocked(options: dict[str, Any]) -> bool:
    return options.get("turn_seconds") is not None or options.get("bank_seconds") is not None


def check(options: dict[str, Any]) -> None:
    """What the generic option checks cannot say: a number of seconds is finite."""
    for name in ("turn_seconds", "bank_seconds"):
        value = options.get(name)
        if value is not None and value != value:  # NaN
            raise InvalidOptions(f"{name} must be a number of seconds", field=f"options.{name}")


def new_clock(options: dict[str, Any], players: int) -> dict[str, Any] | None:
    """The clock part of a new state, or None for a game without a clock."""
    if not clocked(options):
        return None
    turn = round((options.get("turn_seconds") or 0) * 1000)
    bank = round((options.get("bank_seconds") or 0) * 1000)
    return {
        "turn_ms": turn,
        "bank_ms": bank,
        "away_bot": options.get("away_bot") is not None,
        "away_after": options.get("away_after") or 2,
        "since": [None] * players,
        "bank": [bank] * players,
        "missed": [0] * players,
        "away": [False] * players,
        "exempt": [False] * players,
        "marker": None,
    }


def untimed(clock: dict[str, Any], seat: int) -> bool:
    """The clock leaves this seat alone: a bot seat, or an away seat a bot plays."""
    return clock["exempt"][seat] or (clock["away"][seat] and clock["away_bot"])


def seat_deadline_ms(clock: dict[str, Any], seat: int) -> int | None:
    since = clock["since"][seat]
    if since is None or untimed(clock, seat):
        return None
    if clock["away"][seat]:
        return since  # the game no longer waits for an away seat
    return since + clock["turn_ms"] + clock["bank"][seat]


def earliest(clock: dict[str, Any]) -> tuple[int, int] | None:
    """(deadline ms, seat) of the first seat to time out (the lowest seat on a tie)."""
    found = None
    for seat in range(len(clock["since"])):
        due = seat_deadline_ms(clock, seat)
        if due is not None and (found is None or due < found[0]):
            found = (due, seat)
    return found


def tick(clock: dict[str, Any], now_ms: int, awaited: set[int], marker: Any) -> None:
    """After a step at ``now_ms``: end the waits that ended (charging banks), start new ones."""
    new_turn = marker != clock["marker"]
    for seat in range(len(clock["since"])):
        since = clock["since"][seat]
        if since is not None and (seat not in awaited or new_turn):
            over = now_ms - since - clock["turn_ms"]
            if over > 0:
                clock["bank"][seat] = max(0, clock["bank"][seat] - over)
            clock["since"][seat] = None
        if seat in awaited and clock["since"][seat] is None and not clock["exempt"][seat]:
            clock["since"][seat] = now_ms
    clock["marker"] = marker


def public(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """The clock as every view shows it (times in Unix seconds)."""
    if clock is None:
        return None
    seats = []
    for seat in range(len(clock["since"])):
        due = seat_deadline_ms(clock, seat)
        since = clock["since"][seat]
        seats.append(
            {
                "seat": seat,
                "since": None if since is None or untimed(clock, seat) else since / 1000,
                "deadline": None if due is None else due / 1000,
                "bank": clock["bank"][seat] / 1000,
                "missed": clock["missed"][seat],
                "away": clock["away"][seat],
            }
        )
    return {
        "turn_seconds": clock["turn_ms"] / 1000,
        "bank_seconds": clock["bank_ms"] / 1000,
        "away_after": clock["away_after"],
        "seats": seats,
    }
