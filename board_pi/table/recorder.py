"""The recorder: every action of the table journaled whole, or taken back whole, in one place.

An action (a press, a confirmation, a director's correction) changes the game, the clock and
what waits on the page in memory. :meth:`Recorder.action` remembers how they stood, and at the
end writes everything the action changed to the journal in one transaction; only then is the
page told. If the action fails, or the journal cannot take it (a full disk), the game, the clock
and the page's state are put back as they were, so memory never differs from the journal.
Actions that call one another record once, at the outermost.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from ..rules.codec import event_to_dict
from ..rules.events import Event
from .errors import NotRecorded
from .kinds import Pending
from .store import KEEP, JournalError


@dataclass
class Change:
    """One action in the making: what to put back if it cannot be recorded, and what to tell
    the page once it is."""

    events: list[Event]
    clock: dict[str, Any] | None
    pending: Pending | None
    unread: Pending | None
    journaled: Pending | None  # what the journal kept as waiting (the pending, or else the unread turn)
    removal: dict[str, str]
    verdict: dict[str, Any] | None
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    after: list[Callable[[], None]] = field(default_factory=list)
    finished: bool = False


class Recorder:
    """Journals the actions of one :class:`~board_pi.table.table.Table`."""

    def __init__(self, table: Any) -> None:  # the Table whose actions it records
        self.table = table
        self.change: Change | None = None  # the action in the making, if any

    @contextmanager
    def action(self, quiet: bool = False) -> Iterator[None]:
        """One action, recorded whole or not at all (see the module's docstring). ``quiet``: the
        caller copes with a journal that refuses it, the page is not told."""
        if self.change is not None:
            yield
            return
        t = self.table
        ch = Change(list(t.game.events) if t.game is not None else [],
                    t.clock.memento() if t.clock is not None else None,
                    t.pending, t.unread, t.journaled_pending, dict(t.removal), t.verdict)
        self.change = ch
        try:
            yield
            self._write(ch)
        except BaseException as e:
            self.change = None
            self._take_back(ch)
            if isinstance(e, JournalError):
                if quiet:
                    raise NotRecorded(str(e)) from None
                text = (f"not recorded, nothing changed: {e}. Free some space on the table's disk "
                        "(`board-pi doctor` says how full it is) and do it again")
                t._tell(text)
                raise NotRecorded(text) from None
            raise
        self.change = None
        for type_, data in ch.published:
            t.bus.publish(type_, data)
        if ch.published:
            t._published()
        for f in ch.after:
            f()

    def publish(self, type_: str, data: dict[str, Any]) -> bool:
        """Keep a message for the page until the action is recorded; False outside an action."""
        if self.change is None:
            return False
        self.change.published.append((type_, data))
        return True

    def after(self, then: Callable[[], None]) -> None:
        """Run ``then`` once the action is recorded and the page told (at once outside an action;
        never, if the action is taken back)."""
        if self.change is None:
            then()
        else:
            self.change.after.append(then)

    def game_finished(self, after: Callable[[], None]) -> None:
        """The action ends the game: the journal marks it finished, then ``after`` runs."""
        assert self.change is not None, "a game ends inside a recorded action"
        self.change.finished = True
        self.change.after.append(after)

    def _write(self, ch: Change) -> None:
        """Write what the action changed (undos of events taken back, then new events)."""
        t = self.table
        if t.game is None or t.clock is None or t.game_id is None:
            return
        events = t.game.events
        kept = _common_prefix(ch.events, events)
        records = [{"type": "undo"}] * (len(ch.events) - kept) + [event_to_dict(e) for e in events[kept:]]
        journaled = t.journaled_pending
        pending_changed = journaled is not ch.journaled
        clock_changed = t.clock.memento() != ch.clock
        if not (records or pending_changed or clock_changed or ch.finished):
            return
        pending: Any = KEEP
        if pending_changed:
            pending = journaled.to_dict() if journaled is not None else None
        t.journal.commit(t.game_id, records, clock=t.clock.to_dict(wall_time=t.wall()),
                         pending=pending, finished=ch.finished)

    def _take_back(self, ch: Change) -> None:
        t = self.table
        if t.game is not None:
            kept = _common_prefix(ch.events, t.game.events)
            if kept == len(ch.events):  # the action only added events: cut them off
                if kept != len(t.game.events):
                    t.game.truncate(kept)
            else:  # it took some back too (an undo, a correction): the events as they were
                t.game.reset(ch.events)
        if t.clock is not None and ch.clock is not None:
            t.clock.restore(ch.clock)
        t.pending, t.unread, t.removal, t.verdict = ch.pending, ch.unread, ch.removal, ch.verdict


def _common_prefix(before: list[Event], now: list[Event]) -> int:
    """How many events at the start are the very same objects (not merely equal ones)."""
    n = 0
    while n < min(len(before), len(now)) and before[n] is now[n]:
        n += 1
    return n
