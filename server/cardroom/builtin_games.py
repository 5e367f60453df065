"""cardroom's own games, declared as any game package declares its game: each is a
``GamePlugin`` named by an entry point of the ``cardroom.games`` group (pyproject.toml), and
the registry loads them through those entry points like any other."""

from __future__ import annotations

from cardroom.bots import exact_plays as exact_plays_bots
from cardroom.bots import mr_toast as mr_toast_bots
from cardroom.games.exact_plays import ExactPlays
from cardroom.games.mr_toast import MrToast
from cardroom.games.plugin import GamePlugin

mr_toast = GamePlugin(MrToast(), {"greedy": mr_toast_bots.greedy})
exact_plays = GamePlugin(ExactPlays(), {"greedy": exact_plays_bots.greedy})
