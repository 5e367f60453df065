"""cardroom's own games, each a package shaped like any game plug-in (docs/writing-a-game.md):
its engine, its bots, its rules page, its web renderer and the ``GamePlugin`` that declares
them (``plugin.py``, named by an entry point of the ``cardroom.games`` group in
pyproject.toml). A game package uses only the author's kit (cardroom.kit); its engine knows
neither its bots nor any other game (docs/architecture.md, Layers).
"""
