"""Buckets: where a game lives in a Redis Cluster, and the keys that must live beside it.

Redis Cluster puts a key in one of 16384 slots by the CRC16 of its hash tag (the part
between the first ``{`` and ``}``), and a Lua script may only touch keys of one slot. A game's
keys carry its id as their hash tag (``cardroom:game:{ID}``), so anything written atomically
with the game must hash to the game's slot too: the listing index entry written at create,
and, for a background worker, a set of games due for work.

So games are placed in ``BUCKETS`` buckets, each one slot, evenly spaced over the 16384
(bucket ``b`` is slot ``b * 256 + 128``): a new game's id is drawn so that its CRC16 lands in
its bucket's slot (``new_game_id``), and each bucket has a tag (``BUCKET_TAGS``) that hashes
to that same slot, for keys of the bucket (``bucket_key``: its part of the listing index).
Creates pick a bucket at random, so they spread evenly over every master that serves a
share of the slots (with ``redis-cli --cluster create``'s equal ranges, 21 or 22 buckets a
master out of 3). ``bucket_of`` maps any game id back to its bucket (``None`` for a game
created before buckets, whose id was drawn at random: docs/operations.md, "Scale-out").

On a single Redis the buckets cost nothing: they are keys like any other.
"""

from __future__ import annotations

import binascii
import random
import string

from redis.crc import REDIS_CLUSTER_HASH_SLOTS

ID_ALPHABET = string.ascii_letters + string.digits
ID_LENGTH = 12
BUCKETS = 64
_SPACING = REDIS_CLUSTER_HASH_SLOTS // BUCKETS
_LOW_14_BITS = REDIS_CLUSTER_HASH_SLOTS - 1

# The tag of bucket b: "b" + two digits + the shortest string of ID_ALPHABET (in the order of
# itertools.product) that puts it in slot bucket_slot(b). Part of the storage format: never
# change one (tests/cluster/test_buckets.py derives them again).
BUCKET_TAGS = (
    "b00gyA", "b01lb", "b02dih", "b03dyM", "b04bip", "b05aI6", "b06ayY", "b07hpE",
    "b08gpy", "b09f4u", "b10jYe", "b11a43", "b12btw", "b13aT1", "b14fPm", "b15gPi",
    "b16bih", "b17byM", "b182T", "b19Ei", "b20fVJ", "b21fFo", "b22dVB", "b23dFg",
    "b24ej4", "b25dj0", "b26BP", "b27qe", "b28gOS", "b29fOW", "b30boW", "b31coS",
    "b32LJ", "b33dD1", "b34bPL", "b35cPH", "b36btF", "b37bdc", "b38cp", "b39PE",
    "b40d7w", "b41dcZ", "b42Wl", "b43dY", "b44acN", "b45ask", "b46bsg", "b47bcB",
    "b48dkE", "b49ekA", "b50aKA", "b51k66", "b52aoK", "b53hfW", "b54eKQ", "b55ne",
    "b56acV", "b57ass", "b58aBy", "b59o0", "b60dLU", "b61eLQ", "b62e86", "b63Sq",
)  # fmt: skip

_random = random.SystemRandom()


def crc16(data: bytes) -> int:
    """Redis Cluster's CRC16 (XMODEM: initial value 0, no reflection, no final XOR)."""
    return binascii.crc_hqx(data, 0)


def slot_of(tag: str) -> int:
    """The slot of a key whose hash tag is ``tag``."""
    return crc16(tag.encode()) & _LOW_14_BITS


def bucket_slot(bucket: int) -> int:
    return bucket * _SPACING + _SPACING // 2


_BUCKET_OF_SLOT = {bucket_slot(bucket): bucket for bucket in range(BUCKETS)}


def bucket_of(game_id: str) -> int | None:
    """The bucket of a game, from its id alone; None for an id from before buckets."""
    return _BUCKET_OF_SLOT.get(slot_of(game_id))


def bucket_tag(bucket: int) -> str:
    """The hash tag of the bucket's own keys: they share the slot of its games."""
    return BUCKET_TAGS[bucket]


def bucket_key(bucket: int, name: str) -> str:
    """A key of the bucket, e.g. ``bucket_key(7, "games")``: ``cardroom:{b07hpE}:games``."""
    return f"cardroom:{{{BUCKET_TAGS[bucket]}}}:{name}"


def random_bucket() -> int:
    return _random.randrange(BUCKETS)


# CRC16 with initial value 0 is linear: for strings of one length, crc(a XOR b) =
# crc(a) XOR crc(b), and leading zero bytes change nothing. So crc(prefix + suffix) =
# crc(prefix + "\0\0") XOR crc(suffix) for a 2-character suffix: the suffix that puts an id
# in a given slot is found by looking up crc(prefix + "\0\0") XOR slot among the CRCs of all
# 2-character suffixes. Those cover about a fifth of the 16384 values, so about one random
# prefix in five has a suffix for a given slot; the others are drawn again.
_SUFFIXES: dict[int, str] = {}
for _first in ID_ALPHABET:
    for _second in ID_ALPHABET:
        _SUFFIXES.setdefault(slot_of(_first + _second), _first + _second)


def new_game_id(bucket: int | None = None) -> str:
    """A fresh game id in ``bucket`` (a random one if None): 12 letters and digits, safe in
    URLs and on command lines, about 60 random bits besides the bucket."""
    target = bucket_slot(random_bucket() if bucket is None else bucket)
    while True:
        prefix = "".join(_random.choices(ID_ALPHABET, k=ID_LENGTH - 2))
        need = (crc16(prefix.encode() + b"\0\0") ^ target) & _LOW_14_BITS
        suffix = _SUFFIXES.get(need)
        if suffix is not None:
            return prefix + suffix
