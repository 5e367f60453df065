"""Game plug-ins as outside packages might declare them, good and broken, for
tests/plugins/test_registry_plugins.py (each is named by an EntryPoint built there)."""

from __future__ import annotations

from cardroom.games.mr_toast import MrToast
from cardroom.games.mr_toast.plugin import plugin as mr_toast
from cardroom.kit import GamePlugin


class ToastTwo(MrToast):
    """Mr Toast's rules under another game type: a well-formed outside game."""

    game_type = "toast-two"
    title = "Toast Two"


def cautious(view, legal, rng):  # type: ignore[no-untyped-def]
    return legal[0]


good = GamePlugin(ToastTwo(), {"cautious": cautious})
not_a_plugin = {"game": "toast-two"}
misnamed = GamePlugin(ToastTwo())
takes_random = GamePlugin(ToastTwo(), {"random": cautious})
takes_search = GamePlugin(ToastTwo(), {"search": cautious})
describes_a_stranger = GamePlugin(ToastTwo(), {"cautious": cautious}, descriptions={"bold": "x"})
uncallable = GamePlugin(ToastTwo(), {"lazy": "not a function"})
# Another package offering cardroom's own game under its own type's name.
claims_built_in = mr_toast


class OddlyShaped(ToastTwo):
    shapes = {**MrToast.shapes, "OptionsRequest": {"type": "object"}}


class Resultless(ToastTwo):
    shapes = {name: shape for name, shape in MrToast.shapes.items() if name != "Result"}


shape_named_like_the_document = GamePlugin(OddlyShaped())
no_result_shape = GamePlugin(Resultless())
zero_rules_version = GamePlugin(ToastTwo(), rules_version=0)
# Its engine's package (cardroom.games.mr_toast) ships no toast.js.
missing_renderer = GamePlugin(ToastTwo(), renderer="toast.js")
