"""Every view, action result and event list the server sends is what the served API document
says, field for field (issue 27, item 4): the envelopes are declared once
(table/envelopes.py), which checks them where they are shaped (``views.shape_view``…) and
makes their schemas (``api/apidoc/``); tests/api/test_envelopes.py shows a field shaped but
not declared refused.

Random games of each game type at every player count it allows, played through the HTTP API
on the real Redis: every seat's view and a spectator's at every step (waiting, each phase of
play, finished), every action's result, and every seat's and a spectator's events, each
checked against the schema of its game type in the served ``/openapi.json`` (its ``$ref``s
resolved). The document's envelopes forbid undeclared properties, and the test also checks
each envelope's keys against the declared ones itself, so a field the server adds is caught
even if a schema lost its ``additionalProperties: false``.
"""

from __future__ import annotations

import random
from typing import Any

import jsonschema_rs
import pytest

from cardroom.api.apidoc import prefix
from cardroom.games.mr_toast.cards import DEFAULT_COMPOSITION, expand
from cardroom.registry import registry

from helpers import auth, create_game

GAMES = sorted(registry())
COMPONENTS = "#/components/schemas/"
# Turn limits that keep a random game short yet long enough to reach every phase.
TURN_LIMITS = {"mr-toast": 40, "exact-plays": 60}
MAX_STEPS = 2_000
# The envelopes the server builds itself (the games' own parts are their shapes).
ENVELOPES = ("MrToastView", "ExactPlaysView", "ActionResult", "EventList")


class Document:
    """The served document's schemas, as validators by component name."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.schemas = spec["components"]["schemas"]
        self.validators: dict[str, Any] = {}

    def check(self, name: str, value: Any, what: str) -> None:
        if name not in self.validators:
            root = {"components": self.spec["components"], "$ref": COMPONENTS + name}
            self.validators[name] = jsonschema_rs.Draft202012Validator(root)
        error = next(self.validators[name].iter_errors(value), None)
        assert error is None, (
            f"{what} does not match {name}: {error.message} "
            f"at /{'/'.join(map(str, error.instance_path))}"
        )
        schema = self.schemas[name]
        if isinstance(value, dict) and "properties" in schema:
            undeclared = set(value) - set(schema["properties"])
            assert not undeclared, f"{what} has fields {name} does not declare: {undeclared}"

    def check_event(self, game_type: str, event: dict[str, Any], what: str) -> None:
        union = self.schemas[prefix(registry()[game_type]) + "Event"]
        target = union["discriminator"]["mapping"].get(event["type"])
        assert target is not None, f"{what}: undeclared event type {event['type']!r}"
        self.check(target.removeprefix(COMPONENTS), event, f"{what} ({event['type']})")
        assert "private" not in event and "audience" not in event, f"{what} is not redacted"


class Table:
    """One game played at random through the API, every answer checked as it comes."""

    def __init__(self, client: Any, document: Document, game_type: str, rng: random.Random):
        self.client = client
        self.doc = document
        self.game_type = game_type
        self.view_name = prefix(registry()[game_type]) + "View"
        self.rng = rng
        self.tokens: dict[int, str] = {}
        self.phases: set[str] = set()
        self.statuses: set[str] = set()
        self.deals: set[str] = set()
        self.checked = 0

    def view(self, game_id: str, seat: int | None) -> dict[str, Any]:
        headers = auth(self.tokens[seat]) if seat is not None else {}
        response = self.client.get(f"/v1/games/{game_id}/view", headers=headers)
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        self.doc.check(self.view_name, body, f"the view of seat {seat}")
        self.doc.check("View", body, f"the view of seat {seat}")
        assert body["etag"] == response.headers["ETag"].strip('"')
        self.statuses.add(body["status"])
        self.phases.add(body["public"]["phase"])
        self.deals.add(body["deal"])
        self.checked += 1
        return body

    def look(self, game_id: str) -> dict[int | None, dict[str, Any]]:
        """Every seat's view and a spectator's."""
        return {seat: self.view(game_id, seat) for seat in [*sorted(self.tokens), None]}

    def play(self, players: int, **body: Any) -> str:
        game = create_game(self.client, self.game_type, players, **body)
        game_id = game["id"]
        self.look(game_id)  # waiting, nobody seated
        for seat in game["seats"]:
            if seat["taken"]:
                continue
            response = self.client.post(
                f"/v1/games/{game_id}/join", json={"name": f"p{seat['seat']}"}
            )
            assert response.status_code == 201, response.get_json()
            joined = response.get_json()
            self.tokens[joined["seat"]] = joined["token"]
            self.look(game_id)  # waiting with some seats, then the game's start
        for _ in range(MAX_STEPS):
            views = self.look(game_id)
            if views[None]["status"] == "finished":
                break
            movers = [seat for seat in views[None]["to_act"] if seat in self.tokens]
            assert movers, f"nobody can act: {views[None]['to_act']}"
            seat = self.rng.choice(movers)
            action = self.rng.choice(views[seat]["legal_actions"])
            response = self.client.post(
                f"/v1/games/{game_id}/actions", json=action, headers=auth(self.tokens[seat])
            )
            assert response.status_code == 200, (action, response.get_json())
            result = response.get_json()
            what = f"the result of {action}"
            self.doc.check("ActionResult", result, what)
            self.doc.check(self.view_name, result["view"], f"{what}'s view")
            for event in result["events"]:
                self.doc.check_event(self.game_type, event, f"{what}'s event")
        else:
            pytest.fail(f"{self.game_type} did not end in {MAX_STEPS} steps")
        for seat in [*sorted(self.tokens), None]:
            self.events(game_id, seat)
        self.replay(game_id)
        return game_id

    def replay(self, game_id: str) -> None:
        """The replay's events are unredacted: their secret details are fields of their type."""
        response = self.client.get(f"/v1/games/{game_id}/replay")
        assert response.status_code == 200, response.get_json()
        replay = response.get_json()
        name = prefix(registry()[self.game_type])
        self.doc.check(name + "Replay", replay, "the replay")
        union = self.doc.schemas[name + "ReplayEvent"]["discriminator"]["mapping"]
        for step in [{"events": replay["opening_events"]}, *replay["steps"]]:
            for event in step["events"]:
                schema = self.doc.schemas[union[event["type"]].removeprefix(COMPONENTS)]
                for secret in event.get("private", {}).values():
                    assert set(secret) <= set(schema["properties"]) - {"private"}, event

    def events(self, game_id: str, seat: int | None) -> None:
        headers = auth(self.tokens[seat]) if seat is not None else {}
        after = 0
        while True:
            response = self.client.get(
                f"/v1/games/{game_id}/events?after={after}&limit=1000", headers=headers
            )
            assert response.status_code == 200, response.get_json()
            body = response.get_json()
            self.doc.check("EventList", body, f"seat {seat}'s events")
            for event in body["events"]:
                self.doc.check_event(self.game_type, event, f"seat {seat}'s event")
            if body["last_seq"] == after:
                return
            after = body["last_seq"]


@pytest.fixture(scope="module")
def document(app) -> Document:
    return Document(app.test_client().get("/openapi.json").get_json())


def test_the_envelopes_forbid_undeclared_fields(document: Document):
    schemas = document.schemas
    for name in ENVELOPES:
        assert schemas[name].get("additionalProperties") is False, name
        assert set(schemas[name]["required"]) == set(schemas[name]["properties"]), name
    for game in registry().values():
        union = schemas[prefix(game) + "Event"]
        for target in union["discriminator"]["mapping"].values():
            event = schemas[target.removeprefix(COMPONENTS)]
            assert event.get("additionalProperties") is False, target


@pytest.mark.parametrize("game_type", GAMES)
def test_every_view_result_and_event_is_as_documented(client, document: Document, game_type):
    game = registry()[game_type]
    rng = random.Random(f"view-envelope {game_type}")
    table = Table(client, document, game_type, rng)
    for players in range(game.min_players, game.max_players + 1):
        for round_ in range(2):
            table.tokens = {}
            options: dict[str, Any] = {"turn_limit": TURN_LIMITS[game_type]}
            if round_ == 1:  # a turn clock, so that views carry a `clock`
                options |= {"turn_seconds": 600, "bank_seconds": 600}
            table.play(players, seed=rng.randrange(2**32), options=options)
    # A game dealt from the server's secret seed, and a stacked one: their views as they wait.
    deck = expand(DEFAULT_COMPOSITION)
    rng.shuffle(deck)
    others: list[dict[str, Any]] = [{}]
    if game_type == "mr-toast":
        others.append({"options": {"deck": deck}})
    for body in others:
        waiting = create_game(client, game_type, game.min_players, **body)
        table.tokens = {}
        table.look(waiting["id"])

    phases = set(game.shapes["Public"]["properties"]["phase"]["enum"])
    assert table.phases == phases, f"phases never seen: {phases - table.phases}"
    assert table.statuses == {"waiting", "active", "finished"}
    expected_deals = {"seeded", "random"} | ({"stacked"} if game_type == "mr-toast" else set())
    assert table.deals == expected_deals
