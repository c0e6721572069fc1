"""The CLI's own error: bad input from the user, which ``main`` prints as a message with exit 2.

Its own module, so the command handlers (which raise it) and the parser (which loads them by
name) do not import each other. Library code never raises it: it raises its own errors, which the
handlers turn into this one.
"""


class UsageError(Exception):
    """Bad input from the user: printed as a message, exit 2."""
