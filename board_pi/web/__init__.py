"""The status page: table view, word judge screen, director's controls, and the JSON API.

``create_app(table, ...)`` builds the Flask app; ``serve(table, host, port, ...)`` runs it under
waitress in a background thread and returns a handle with ``.port``, ``.url`` and ``.stop()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Flask is imported only when the page is wanted
    from .app import create_app
    from .server import ServerHandle, serve

__all__ = ["create_app", "serve", "ServerHandle"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name in ("serve", "ServerHandle"):
        from . import server

        return getattr(server, name)
    raise AttributeError(name)
