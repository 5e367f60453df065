"""Games found through entry points (cardroom/registry.py, kit/plugin.py; issue 30): our
own games load through the same ``cardroom.games`` entry points as any package's, and a
broken plug-in is refused, with its package and the reason, while the others are served."""

from __future__ import annotations

import logging
from importlib.metadata import EntryPoint

import pytest

from cardroom import registry
from cardroom.registry import GROUP, Found, load
from cardroom.serve.cli import main as cli


def found(name: str, attribute: str, package: str = "toast-two-game") -> Found:
    return Found(EntryPoint(name, f"sample_plugins:{attribute}", GROUP), package, "1.0")


def built_ins() -> list[Found]:
    return [f for f in registry.discover() if f.package == registry.BUILT_IN]


def test_our_own_games_load_through_the_entry_points() -> None:
    ours = built_ins()
    assert {f.entry_point.name for f in ours} == {"mr-toast", "exact-plays"}
    # Each in its own package, declared as any plug-in declares its game.
    assert {f.entry_point.value for f in ours} == {
        "cardroom.games.mr_toast.plugin:plugin",
        "cardroom.games.exact_plays.plugin:plugin",
    }
    assert set(registry.registry()) == {"mr-toast", "exact-plays"}
    assert registry.refused() == []
    for entry in registry.installed().values():
        assert entry.package == "cardroom"
        assert "random" in entry.policies and "greedy" in entry.policies


def test_a_well_formed_outside_game_is_served_with_its_policies() -> None:
    games, refused = load([*built_ins(), found("toast-two", "good")])
    assert refused == []
    assert list(games) == ["exact-plays", "mr-toast", "toast-two"]
    entry = games["toast-two"]
    assert (entry.package, entry.version) == ("toast-two-game", "1.0")
    # It samples its hidden state (Mr Toast's sampler): the search levels come with it,
    # played out by its own first policy (issue 29, item 7).
    bots = {"random", "cautious", "search", "search-strong"}
    assert set(entry.policies) == bots
    assert entry.policies["search"].rollout is entry.plugin.policies["cautious"]
    away_bot = next(s for s in entry.game.option_specs if s.name == "away_bot")
    assert set(away_bot.choices or ()) == bots


@pytest.mark.parametrize(
    ("name", "attribute", "reason"),
    [
        ("toast-two", "missing_attribute", "failed to import: AttributeError"),
        ("toast-two", "not_a_plugin", "gives a dict, not a GamePlugin"),
        ("toast-three", "misnamed", "named 'toast-three' but its game says 'toast-two'"),
        ("Toast Two", "misnamed", "is not 2 to 32 lower-case letters"),
        ("toast-two", "takes_random", "policy 'random' is every game's own"),
        ("toast-two", "uncallable", "policy 'lazy' is not callable"),
        ("toast-two", "takes_search", "policy 'search' is the name of a search level"),
        ("toast-two", "describes_a_stranger", "describes a policy 'bold' it does not declare"),
        ("mr-toast", "claims_built_in", "already served by package cardroom"),
        ("toast-two", "shape_named_like_the_document", "'OptionsRequest' is one the API"),
        ("toast-two", "no_result_shape", "its shapes lack Result"),
        ("toast-two", "zero_rules_version", "rules_version 0 is not a whole number from 1"),
        ("toast-two", "missing_renderer", "its renderer 'toast.js' is not in its package"),
    ],
)
def test_a_broken_plugin_is_refused_by_name_and_the_others_are_served(
    caplog: pytest.LogCaptureFixture, name: str, attribute: str, reason: str
) -> None:
    with caplog.at_level(logging.ERROR, logger="cardroom.registry"):
        games, refused = load([*built_ins(), found(name, attribute)])
    assert set(games) == {"mr-toast", "exact-plays"}
    assert games["mr-toast"].package == "cardroom"
    [refusal] = refused
    assert (refusal.game_type, refusal.package) == (name, "toast-two-game")
    assert reason in refusal.reason
    [line] = caplog.messages
    assert f"game plug-in {name!r} of package toast-two-game 1.0 refused" in line
    assert reason in line


def test_a_module_that_fails_to_import_is_refused() -> None:
    point = Found(EntryPoint("toast-four", "no_such_module:plugin", GROUP), "broken-game", "0.1")
    games, [refusal] = load([*built_ins(), point])
    assert "toast-four" not in games
    assert refusal.reason.startswith("it failed to import: ModuleNotFoundError")


def test_cardroom_games_lists_the_installed_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["games"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "exact-plays  Exact Plays  (package cardroom 0.1.0)",
        "mr-toast  Mr Toast  (package cardroom 0.1.0)",
    ]


def test_cardroom_games_names_a_refused_plugin_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        registry, "_LOADED", load([*built_ins(), found("toast-two", "not_a_plugin")])
    )
    assert cli(["games"]) == 1
    out = capsys.readouterr().out
    assert "refused: toast-two (package toast-two-game 1.0): the entry point gives a dict" in out
