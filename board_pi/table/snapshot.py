"""The table's state as the status page, the event stream and the club see it: one shape.

:meth:`Table.snapshot <board_pi.table.table.Table.snapshot>` builds it; it is already JSON (plain
dicts, lists, strings and numbers), sent as it is by ``/api/state`` and as the event stream's
``state`` events, and documented as ``State`` in ``board_pi/web/openapi.json``. Without a game
only the keys every snapshot has are there (``game`` is then None); ``seq`` is added by
:class:`~board_pi.table.facade.TableFacade` (the last event the snapshot includes).
"""

from typing import Any, NotRequired, TypedDict


class PlayerClockView(TypedDict):
    remaining_ms: int  # below zero in overtime
    overtime_penalty: int
    running: bool
    flagged: bool


class PlayerView(TypedDict):
    name: str
    score: int
    rack: str
    clock: PlayerClockView


class MoveView(TypedDict):
    player: int
    text: str  # "8D QUITE", "-", "-ABC", ...
    score: int
    total: int


class HoldView(TypedDict):
    by: int
    of: int


class ControlView(TypedDict):
    """What the page needs of the time control to count the clocks down between events."""

    minutes: float
    overtime_penalty: int
    max_overtime_minutes: float
    low_time_seconds: float


class ClockView(TypedDict):
    phase: str
    running: int | None
    hold: HoldView | None
    may_draw: bool
    control: ControlView


class RulesView(TypedDict):
    challenge: str
    tournament: bool
    lexicon: str


class TileSetView(TypedDict):
    """The game's tile set: its name, its faces in its own order, and how many blanks it has."""

    name: str
    letters: list[str]
    blanks: int


class Snapshot(TypedDict):
    """The table's state (see the module docstring); the keys marked NotRequired come with a game."""

    game: int | None
    board: list[str]  # 15 rows: "." empty, upper case a tile, lower case a blank, [CH] a two-letter tile
    squares: list[list[str]]  # the same board square by square: "CH", "ä" (a blank played as Ä), "."
    players: list[PlayerView]
    turn: int | None
    moves: list[MoveView]
    unseen: dict[str, int]
    bag: int
    over: bool
    pending: dict[str, Any] | None  # a Pending's to_dict()
    messages: list[str]
    premiums: NotRequired[list[str]]
    tile_set: NotRequired[TileSetView]
    values: NotRequired[dict[str, int]]
    last_play: NotRequired[list[str]]  # squares, like "H8"
    clock: NotRequired[ClockView]
    rules: NotRequired[RulesView]
    verdict: NotRequired[dict[str, Any] | None]
    removal: NotRequired[list[str]]
    winners: NotRequired[list[int]]
    seq: NotRequired[int]  # the last event the snapshot includes
