"""The status page's routes, one blueprint per job: the pages, what anyone may read, the event
stream, the word judge, and the director's actions on the game (the
director's session is :mod:`board_pi.serve.signin`'s)."""

from __future__ import annotations

from flask import Blueprint

from .actions import actions
from .events import events
from .judge import judge
from .pages import pages
from .reading import reading

BLUEPRINTS: tuple[Blueprint, ...] = (pages, reading, events, judge, actions)
