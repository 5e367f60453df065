"""cardroom: a REST game server for turn-based card games with hidden hands."""

__version__ = "0.1.0"
