"""board-pi: a Raspberry Pi companion for a real Scrabble board."""

__version__ = "0.1.0"
