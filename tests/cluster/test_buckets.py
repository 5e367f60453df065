"""Buckets (cardroom.store.buckets): a game's id puts it in the slot of its bucket's keys."""

from __future__ import annotations

import itertools
import re
from collections import Counter

from redis.crc import key_slot

from cardroom.store import buckets
from cardroom.store.listing import index_key
from cardroom.store.record import game_key, idempotency_key


def slot(key: str) -> int:
    """redis-py's own slot function, not ours."""
    return key_slot(key.encode())


def test_bucket_tags_are_derived_as_documented_and_sit_in_their_slots():
    """The tags are part of the storage format: derive them again, the documented way."""
    for bucket, tag in enumerate(buckets.BUCKET_TAGS):
        target = buckets.bucket_slot(bucket)
        derived = next(
            f"b{bucket:02d}" + "".join(combo)
            for length in range(1, 4)
            for combo in itertools.product(buckets.ID_ALPHABET, repeat=length)
            if buckets.slot_of(f"b{bucket:02d}" + "".join(combo)) == target
        )
        assert tag == derived
        assert slot(index_key(bucket)) == target
    assert len(set(buckets.BUCKET_TAGS)) == buckets.BUCKETS == 64


def test_bucket_slots_are_evenly_spaced_so_equal_slot_ranges_get_equal_shares():
    slots = [buckets.bucket_slot(bucket) for bucket in range(buckets.BUCKETS)]
    assert slots == sorted(slots) and len(set(slots)) == 64
    assert {b - a for a, b in itertools.pairwise(slots)} == {256}
    # redis-cli --cluster create's three equal ranges
    ranges = [(0, 5460), (5461, 10922), (10923, 16383)]
    shares = [sum(first <= s <= last for s in slots) for first, last in ranges]
    assert shares == [21, 22, 21]


def test_a_new_game_and_all_its_keys_share_the_slot_of_its_bucket():
    for bucket in range(buckets.BUCKETS):
        game_id = buckets.new_game_id(bucket)
        assert re.fullmatch(r"[A-Za-z0-9]{12}", game_id)
        assert buckets.bucket_of(game_id) == bucket
        keys = [game_key(game_id), idempotency_key(game_id, "token", "key"), index_key(bucket)]
        assert {slot(key) for key in keys} == {buckets.bucket_slot(bucket)}


def test_new_games_spread_evenly_over_the_buckets_and_never_repeat():
    ids = [buckets.new_game_id() for _ in range(12_800)]
    assert len(set(ids)) == len(ids)
    per_bucket = Counter(buckets.bucket_of(game_id) for game_id in ids)
    assert set(per_bucket) == set(range(64))
    # 200 expected per bucket; a binomial spread stays well inside these bounds
    assert min(per_bucket.values()) > 120 and max(per_bucket.values()) < 290
    # the ids are not predictable from their bucket: their first ten characters vary freely
    assert len({game_id[:2] for game_id in ids}) > 3000


def test_an_id_from_before_buckets_is_in_no_bucket():
    """Old ids were 12 random characters: all but 64 in 16384 slots hold no bucket."""
    assert buckets.bucket_of("Qx3aB7kLm9Zt") is None
    assert buckets.bucket_of("aaaaaaaaaaaa") is None
