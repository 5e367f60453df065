"""Shared by the cluster tests: where keys live, and the whole listing index as stored."""

from __future__ import annotations

import sys
from pathlib import Path

import redis

from cardroom.store import buckets
from cardroom.store.embedded_cluster import EmbeddedCluster
from cardroom.store.listing import LEGACY_INDEX_KEY, index_key
from cardroom.store.record import game_key


def master_port_of(cluster: EmbeddedCluster, game_id: str) -> int:
    return cluster.node_of_slot(buckets.slot_of(game_id)).port


def stored_index(client: redis.Redis | redis.RedisCluster) -> list[tuple[str, int]]:
    """Every index entry whose game exists, newest first: what a listing must show."""
    entries: list[tuple[str, int]] = []
    for key in [*(index_key(b) for b in range(buckets.BUCKETS)), LEGACY_INDEX_KEY]:
        rows = client.zrange(key, 0, -1, withscores=True)
        entries += [(member.decode(), int(score)) for member, score in rows]
    entries.sort(key=lambda entry: entry[1], reverse=True)
    pipe = client.pipeline(transaction=False)
    for game_id, _ in entries:
        pipe.exists(game_key(game_id))
    return [entry for entry, found in zip(entries, pipe.execute(), strict=True) if found]


def page_all(client, query: str, limit: int) -> list[str]:
    """Page through GET /v1/games with ``next_cursor``: every id, in order."""
    seen: list[str] = []
    cursor = None
    for _ in range(10_000):
        url = f"/v1/games?limit={limit}{query}" + (f"&cursor={cursor}" if cursor else "")
        response = client.get(url)
        assert response.status_code == 200, response.get_json()
        page = response.get_json()
        seen += [game["id"] for game in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            return seen
    raise AssertionError("the listing never ended")


# The exactly-once check of the hardening tests (replay every game from its seed with the
# acknowledged actions), from their folder rather than copied.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "hardening"))
from hardening_kit import Accepted, replay_matches  # noqa: E402

__all__ = ["Accepted", "master_port_of", "page_all", "replay_matches", "stored_index"]
