"""The peer benchmark: cardroom and boardgame.io side by side, per move (README.md here)."""
