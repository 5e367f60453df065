"""MT-14 through the service: a timed No Way window closes lazily, on the next request."""

from __future__ import annotations

import pytest
from clock_kit import clocked_app, opened

from cardroom.games.mr_toast.cards import DEFAULT_COUNTS
from cardroom.store.embedded import EmbeddedRedis
from cardroom.table import PreconditionFailed, Tables, etag_for

T0 = 1000.0


@pytest.fixture(scope="module")
def own_store(tmp_path_factory):
    """A Redis of this module's own: a timed window is due work (the due set), and the
    suite's gunicorn servers run progression loops on the shared one, on the real clock,
    which would close these windows at once."""
    with EmbeddedRedis(tmp_path_factory.mktemp("deadline-redis")) as server:
        yield clocked_app(server.url).extensions["cardroom.tables"].store


def stacked_with_find_a_penny_first() -> list[str]:
    codes = [code for code, count in DEFAULT_COUNTS.items() for _ in range(count)]
    codes.remove("FP")
    return ["FP", *codes]


def test_a_timed_window_closes_on_the_first_request_after_its_deadline(own_store):
    now = [T0]
    tables = Tables(own_store, clock=lambda: now[0])
    options = {"deck": stacked_with_find_a_penny_first(), "first_seat": 0, "reaction_deadline": 5}
    record = tables.create("mr-toast", 2, options, seed=1)
    tokens = {seat: tables.join(record.id, f"p{seat}", seat)[2] for seat in (0, 1)}
    view = tables.shape_view(*opened(tables, record.id, tokens[0]))
    penny = next(a for a in view["legal_actions"] if a["type"] == "play_blue")
    tables.act(record.id, tokens[0], penny)

    now[0] = T0 + 4  # inside the window: seat 1 is still to answer (MT-12)
    record, _ = opened(tables, record.id, None)
    view = tables.shape_view(record, None)
    assert view["to_act"] == [1] and view["deadline"] == T0 + 5
    version = view["version"]

    now[0] = T0 + 6  # past it: the window closes as if seat 1 allowed (MT-13, MT-14)
    record, _ = opened(tables, record.id, None)
    view = tables.shape_view(record, None)
    assert view["deadline"] is None
    assert view["version"] == version + 1
    assert view["to_act"] == [1], "the blue card resolved, the turn passed"
    _, events, _ = tables.events(record.id, tokens[1], after=0, wait=0, limit=1000)
    assert "window_closed" in [event["type"] for event in events]


def test_an_if_match_from_before_a_window_closed_is_stale(own_store):
    """The window closes inside the action's own request: an answer decided on the view from
    before it (If-Match) is refused with 412, not applied to the next window."""
    now = [T0]
    tables = Tables(own_store, clock=lambda: now[0])
    options = {"deck": stacked_with_find_a_penny_first(), "first_seat": 0, "reaction_deadline": 5}
    record = tables.create("mr-toast", 2, options, seed=1)
    tokens = {seat: tables.join(record.id, f"p{seat}", seat)[2] for seat in (0, 1)}
    view = tables.shape_view(*opened(tables, record.id, tokens[0]))
    penny = next(a for a in view["legal_actions"] if a["type"] == "play_blue")
    tables.act(record.id, tokens[0], penny)

    now[0] = T0 + 4  # seat 1 sees the window open and decides
    record, seat = opened(tables, record.id, tokens[1])
    etag = etag_for(record, seat)
    answer = next(a for a in tables.shape_view(record, seat)["legal_actions"])
    version = record.version

    now[0] = T0 + 6  # the answer arrives after the deadline
    with pytest.raises(PreconditionFailed):
        tables.act(record.id, tokens[1], answer, if_match={etag})
    assert tables.summary(record.id)["version"] == version + 1, "only the window closed"
