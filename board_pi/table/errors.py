"""The table's errors: an action it cannot take now, and an action the journal could not record."""


class TableError(ValueError):
    """An action the table cannot take now; the message says why (shown as a 4xx on the page)."""


class NotRecorded(TableError):
    """The journal could not record an action (disk full, file gone): the action was taken back
    whole, so the game is as it was; it can be done again once the journal can be written."""
