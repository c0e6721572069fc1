"""The rules of the game, pure Python with no I/O: tiles, board, plays, scoring, the game, GCG."""
