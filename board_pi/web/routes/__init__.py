"""The status page's routes, one blueprint per job: the pages, what anyone may read, the event
stream, the director's session, the word judge, and the director's actions on the game."""

from __future__ import annotations

from flask import Blueprint

from .actions import actions
from .events import events
from .judge import judge
from .pages import pages
from .reading import reading
from .session import director_session

BLUEPRINTS: tuple[Blueprint, ...] = (pages, reading, events, director_session, judge, actions)
