"""The author's conformance check (``cardroom.kit.conformance``) on Crazy Eights: random
games of every player count, every step checked against the engine contract (legal actions
accepted, everything else refused, no hidden card in any view or event, views and events as
declared, same seed and actions, same game)."""

from __future__ import annotations

from cardroom.kit.conformance import check_declarations, check_game

from crazy_eights.plugin import plugin

# Random play makes long games (a random player draws even when it could play): 20 games,
# five of each player count, keep this file within about 10 seconds. The options are drawn
# too (turn clock, target, turn limit). The deals after the first (option target) are not
# reached with these seeds: tests/test_rules.py checks their event against the shapes.
GAMES = 20


def test_the_declarations_are_what_the_server_reads():
    check_declarations(plugin.game)


def test_random_games_of_every_player_count_keep_the_contract():
    check_game(plugin, games=GAMES, seed=0)
