"""The engines: pure rules of each game type and the contract they share (games/base.py).

Nothing here knows the bots or the registry (cardroom/registry.py) that pairs each engine
with its bot policies; docs/architecture.md, Layers.
"""
