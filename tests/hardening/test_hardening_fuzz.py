"""Hostile input: schemathesis generates requests from the app's own OpenAPI document.

Every operation is fuzzed with valid (positive) and invalid (negative) data, against made-up
game ids and against real games (waiting, active, finished) with real and wrong seat tokens.
No answer may be a 5xx, and every answer must match the document: a documented status, its
content type, its body schema and its headers. Bounded and derandomized: a few seconds.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from cardroom.config import Settings
from cardroom.serve.app import create_app

MAX_EXAMPLES = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]
# An open event stream lasts minutes: only finished games' streams (they end at once).
STREAM = "/v1/games/{game_id}/events/stream"
OUTCOMES: Counter[tuple[str, int]] = Counter()


@pytest.fixture(scope="module")
def fuzz_app(settings: Settings):
    # Rate limits are tested on their own (test_hardening_limits); here they would only
    # turn a burst of generated creates into 429s. A held view (`wait` with a current
    # If-None-Match) answers after at most 0.2 s instead of the default's seconds: the
    # answers are what is checked, not how long a long-poll holds.
    return create_app(dataclasses.replace(settings, rate_limit_create="off", max_wait_seconds=0.2))


@pytest.fixture(scope="module")
def real_games(fuzz_app) -> dict[str, Any]:
    client = fuzz_app.test_client()

    def create(game_type: str, players: int, **body: Any) -> str:
        response = client.post(
            "/v1/games", json={"game_type": game_type, "players": players, **body}
        )
        assert response.status_code == 201, response.get_json()
        return response.get_json()["id"]

    waiting = create("mr-toast", 3)
    tokens = []
    active = []
    for game_type, players in (("mr-toast", 2), ("exact-plays", 3)):
        game_id = create(game_type, players)
        active.append(game_id)
        for _ in range(players):
            tokens.append(
                client.post(f"/v1/games/{game_id}/join", json={"name": "fuzz"}).get_json()["token"]
            )
    finished = create(
        "exact-plays",
        2,
        bots=[{"seat": 0, "policy": "random"}, {"seat": 1, "policy": "greedy"}],
    )
    assert client.get(f"/v1/games/{finished}").get_json()["status"] == "finished"
    return {
        "ids": [waiting, *active, finished],
        "finished": [finished],
        "authorization": [f"Bearer {token}" for token in tokens]
        + ["Bearer not-a-token", "Basic Zm9vOmJhcg==", "Bearer "],
    }


def operations(fuzz_app) -> list[Any]:
    schema = schemathesis.openapi.from_wsgi("/openapi.json", fuzz_app)
    return [result.ok() for result in schema.get_all_operations()]


def fuzz(operation: Any, strategy: Any, examples: int = MAX_EXAMPLES) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        response = case.call()
        OUTCOMES[(operation.label, response.status_code)] += 1
        case.validate_response(response, checks=CHECKS)

    # Unsatisfiable: no invalid value exists for this operation (a free-form path id).
    with contextlib.suppress(Unsatisfiable):
        run()


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_generated_requests_get_documented_answers_and_no_5xx(fuzz_app, real_games, mode):
    OUTCOMES.clear()
    for operation in operations(fuzz_app):
        path_has_game = "{game_id}" in operation.path
        if operation.path != STREAM:
            fuzz(operation, operation.as_strategy(generation_mode=mode))
        if not path_has_game:
            continue
        ids = real_games["finished"] if operation.path == STREAM else real_games["ids"]
        query = {"wait": 0} if operation.path.endswith("/events") else None

        def on_real_game(pair: tuple[str, str], operation: Any = operation, query: Any = query):
            game_id, authorization = pair
            return operation.as_strategy(
                generation_mode=mode,
                path_parameters={"game_id": game_id},
                headers={"Authorization": authorization},
                query=query,
            )

        fuzz(
            operation,
            st.tuples(st.sampled_from(ids), st.sampled_from(real_games["authorization"])).flatmap(
                on_real_game
            ),
        )
    by_status: Counter[int] = Counter()
    for (_, status), count in OUTCOMES.items():
        by_status[status] += count
    total = sum(by_status.values())
    print(f"\nfuzz ({mode.value}): {total} requests, {dict(sorted(by_status.items()))}")


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def test_creates_of_real_game_types_with_hostile_options_get_documented_answers(fuzz_app):
    """Generated game types are mostly unknown ones: here the real ones, with wild options."""
    described = fuzz_app.test_client().get("/v1/game-types").get_json()["game_types"]
    names = sorted({option["name"] for game in described for option in game["options"]})
    option_values = st.dictionaries(st.sampled_from(names) | st.text(max_size=8), JSON, max_size=4)
    bodies = st.fixed_dictionaries(
        {
            "game_type": st.sampled_from([game["game_type"] for game in described]),
            "players": st.integers(min_value=0, max_value=8),
        },
        optional={
            "options": option_values,
            "seed": st.integers(min_value=-1, max_value=2**54),
            "bots": st.lists(
                st.fixed_dictionaries(
                    {
                        "seat": st.integers(min_value=-1, max_value=7),
                        "policy": st.sampled_from(["random", "greedy", "clever"]),
                    }
                ),
                max_size=3,
            ),
        },
    )
    [create] = [op for op in operations(fuzz_app) if op.label == "POST /v1/games"]
    OUTCOMES.clear()
    fuzz(create, bodies.flatmap(lambda body: create.as_strategy(body=body)), examples=80)
    by_status = Counter({status: count for (_, status), count in OUTCOMES.items()})
    print(f"\nfuzz (real game types): {sum(by_status.values())} creates, {dict(by_status)}")
    assert by_status[201] and by_status[422], "both accepted and refused options were tried"
