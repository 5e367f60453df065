"""Listing.list_index merges the 64 buckets exactly, however the entries are spread: every
page is the next entries of the whole index, in order, whatever the cursor and page size."""

from __future__ import annotations

import random

import pytest
import redis

from cardroom.store import buckets
from cardroom.store.embedded import EmbeddedRedis
from cardroom.store.listing import Listing, index_key


@pytest.fixture(scope="module")
def listing(tmp_path_factory):
    """A Redis of its own: the index entries here have no games behind them."""
    with EmbeddedRedis(tmp_path_factory.mktemp("merge")) as server:
        client = redis.Redis.from_url(server.url)
        yield Listing(client)
        client.close()


def fill(listing: Listing, rng: random.Random, spread: str) -> list[int]:
    """Entries placed as the create script places them (x * 64 + bucket); every place."""
    listing.client.flushall()
    weights = {
        "even": [1] * buckets.BUCKETS,
        "one bucket": [1 if b == 7 else 0 for b in range(buckets.BUCKETS)],
        "skewed": [2 ** -(b % 9) for b in range(buckets.BUCKETS)],
        "two buckets far apart": [1 if b in (0, 63) else 0 for b in range(buckets.BUCKETS)],
    }[spread]
    places = []
    pipe = listing.client.pipeline(transaction=False)
    x = 1_764_000_000_000
    for number in range(600):
        bucket = rng.choices(range(buckets.BUCKETS), weights)[0]
        x += rng.choice([0, 0, 1, 5])  # several games in one ms, in different buckets
        place = x * buckets.BUCKETS + bucket
        if place in places:
            continue
        places.append(place)
        pipe.zadd(index_key(bucket), {f"g{number}": place})
    pipe.execute()
    return sorted(places, reverse=True)


@pytest.mark.parametrize("spread", ["even", "one bucket", "skewed", "two buckets far apart"])
def test_pages_are_the_whole_index_in_order(listing, spread):
    rng = random.Random(spread)
    truth = fill(listing, rng, spread)
    for count in (2, 7, 20, 64, 100):
        seen: list[int] = []
        before = None
        while page := listing.list_index(before, count):
            assert len(page) <= count
            seen += [entry.place for entry in page]
            before = page[-1].place
        assert seen == truth, f"pages of {count}"
    for _ in range(20):
        cursor = rng.choice(truth)
        count = rng.randint(1, 100)
        page = [entry.place for entry in listing.list_index(cursor, count)]
        start = truth.index(cursor) + 1
        assert page == truth[start : start + count]
