"""Reading a request's JSON body: every bad value a 400 with a message that names it.

:class:`ApiError` is how any route refuses a request: ``status`` and a message for the page
(``{"error": message}``), with extra fields the page may use (``login``, ``wait``...).
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Response, jsonify, request

from ..settings import check, choice, from_text

MAX_BODY = 64 * 1024  # every request the pages make is tiny
MAX_DEPTH = 16  # the pages' bodies nest two or three levels
_WHOLE = re.compile(r"[+-]?[0-9]{1,12}")


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message for the page."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


def refusal(e: ApiError) -> tuple[Response, int]:
    """The answer to a refused request: ``{"error": message, ...}`` with its status, and
    ``Retry-After`` when the client is told to wait (a lockout)."""
    resp = jsonify({"error": e.message, **e.extra})
    if "wait" in e.extra:
        resp.headers["Retry-After"] = str(int(e.extra["wait"]) + 1)
    return resp, e.status


def body() -> dict[str, Any]:
    """The request's JSON object (an empty body counts as ``{}``)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    if _depth(raw) > MAX_DEPTH:
        raise ApiError(400, f"the body nests too deep (at most {MAX_DEPTH} levels)")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ApiError(400, f"the body is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _depth(raw: bytes) -> int:
    """How deep the brackets of a JSON text nest, found without parsing (strings skipped): a
    deeply nested body must not reach the parser's recursion at all."""
    deepest = depth = 0
    in_string = escaped = False
    for b in raw:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # "
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def whole(data: dict[str, Any], name: str, lo: int, hi: int, default: int | None = None) -> int:
    value = data.get(name, default)
    if value is None:
        raise ApiError(400, f"{name} is required")
    if isinstance(value, bool) or not isinstance(value, int):
        # Not str.isdigit: it takes "²" and "٣", which int() then refuses.
        if isinstance(value, str) and _WHOLE.fullmatch(value.strip()):
            value = int(value.strip())
        else:
            raise ApiError(400, f"{name} must be a whole number")
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be between {lo} and {hi}")
    return value


def setting(data: dict[str, Any], owner: type, name: str) -> Any:
    """``owner``'s setting ``name`` from the body (its default when not given), checked against
    the limits ``owner`` defines: the same words as the configuration file and the command line."""
    if name not in data:
        return getattr(owner, name)
    value, problem = check(owner, name, from_text(data[name]))
    if problem:
        raise ApiError(400, f"{name}: {problem}")
    return value


def one_of(data: dict[str, Any], name: str, options: tuple[str, ...], default: str) -> str:
    """One of ``options`` (an enum's values), with the configuration's words when it is not."""
    value, problem = choice(options)(data.get(name, default))
    if problem:
        raise ApiError(400, f"{name}: {problem}")
    return str(value)


def text(data: dict[str, Any], name: str, max_len: int = 200, default: str | None = None,
          required: bool = True) -> str:
    value = data.get(name, default)
    if value is None:
        if required:
            raise ApiError(400, f"{name} is required")
        return ""
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be text")
    value = value.strip()
    if len(value) > max_len:
        raise ApiError(400, f"{name} is too long (at most {max_len} characters)")
    if not value.isprintable():
        raise ApiError(400, f"{name} has characters that cannot be shown")
    if required and not value:
        raise ApiError(400, f"{name} is required")
    return value


def letters(data: dict[str, Any], name: str) -> dict[str, str]:
    value = data.get(name)
    if not isinstance(value, dict) or len(value) > 225:
        raise ApiError(400, f"{name} must be an object mapping squares (like \"8H\") to letters")
    out = {}
    for k, v in value.items():
        if not isinstance(v, str) or len(k) > 4 or len(v) > 4:
            raise ApiError(400, f"{name}: square {k!s:.8} must map to one letter")
        out[k] = v.strip()
    return out
