"""Each envelope (the view, an action's answer, a page of events, an event) is declared once
(table/envelopes.py): the declaration checks every instance where it is shaped, and the API
document's schema is made from it. A field shaped but not declared is refused as it is sent;
tests/api/test_view_envelope.py checks what is sent against the document."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from cardroom.api.apidoc import prefix
from cardroom.registry import registry
from cardroom.table import envelopes
from cardroom.table.envelopes import (
    ACTION_RESULT,
    EVENT,
    EVENT_LIST,
    VIEW,
    Envelope,
    EnvelopeMismatch,
)

from helpers import auth, new_table, view

COMPONENTS = "#/components/schemas/"


def without(envelope: Envelope, name: str) -> Envelope:
    """The envelope as if ``name`` had been shaped without being declared."""
    return Envelope(envelope.name, *(field for field in envelope.fields if field.name != name))


def shaped_fields(envelope: Envelope) -> list[str]:
    return [field.name for field in envelope.fields if field.shaped]


def test_an_instance_must_have_exactly_the_shaped_fields():
    exact = dict.fromkeys(shaped_fields(EVENT_LIST))
    assert EVENT_LIST.checked(exact) is exact
    with pytest.raises(EnvelopeMismatch, match=r"unexpected \['cursor'\]"):
        EVENT_LIST.checked({**exact, "cursor": 3})
    with pytest.raises(EnvelopeMismatch, match=r"missing \['last_seq'\]"):
        EVENT_LIST.checked({key: None for key in exact if key != "last_seq"})
    renamed = {("last" if key == "last_seq" else key): None for key in exact}
    with pytest.raises(EnvelopeMismatch, match=r"missing \['last_seq'\], unexpected \['last'\]"):
        EVENT_LIST.checked(renamed)
    view = dict.fromkeys(shaped_fields(VIEW))
    assert VIEW.checked(view) is view
    with pytest.raises(EnvelopeMismatch, match=r"unexpected \['etag'\]"):
        VIEW.checked({**view, "etag": "3f2a"})  # the sender's, added once it is shaped


def test_the_declarations_import_nothing_of_the_server():
    tree = ast.parse(Path(envelopes.__file__).read_text())
    imported = [
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    ]
    assert not [name for name in imported if (name or "").startswith("cardroom")], imported


@pytest.mark.parametrize(
    ("site", "envelope", "field"),
    [
        ("cardroom.table.views.VIEW", VIEW, "public"),
        ("cardroom.table.move.ACTION_RESULT", ACTION_RESULT, "view"),
        ("cardroom.api.games.EVENT_LIST", EVENT_LIST, "last_seq"),
    ],
)
def test_a_field_shaped_but_not_declared_is_refused_where_it_is_shaped(
    client, monkeypatch, site: str, envelope: Envelope, field: str
):
    game_id, tokens = new_table(client, "exact-plays", 2, seed=5)
    seat = view(client, game_id)["to_act"][0]
    action = view(client, game_id, tokens[seat])["legal_actions"][0]
    monkeypatch.setattr(site, without(envelope, field))
    requests: dict[str, Any] = {
        "VIEW": lambda: client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])),
        "ACTION_RESULT": lambda: client.post(
            f"/v1/games/{game_id}/actions", json=action, headers=auth(tokens[seat])
        ),
        "EVENT_LIST": lambda: client.get(f"/v1/games/{game_id}/events"),
    }
    response = requests[site.rsplit(".", 1)[1]]()
    assert response.status_code == 500, response.get_json()


def test_the_document_s_envelopes_are_the_declarations(client):
    schemas = client.get("/openapi.json").get_json()["components"]["schemas"]
    named = {"ActionResult": ACTION_RESULT, "EventList": EVENT_LIST}
    named |= {prefix(game) + "View": VIEW for game in registry().values()}
    for name, envelope in named.items():
        declared = [field.name for field in envelope.fields]
        assert list(schemas[name]["properties"]) == declared, name
        assert schemas[name]["required"] == declared, name
    event_fields = [field.name for field in EVENT.fields]
    for game in registry().values():
        mapping = schemas[prefix(game) + "Event"]["discriminator"]["mapping"]
        for target in mapping.values():
            properties = list(schemas[target.removeprefix(COMPONENTS)]["properties"])
            assert properties[: len(event_fields)] == event_fields, target
