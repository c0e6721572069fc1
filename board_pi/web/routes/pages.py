"""The three pages: the table view, the word judge screen, the director's controls."""

from __future__ import annotations

from flask import Blueprint, render_template

from ..access import csrf_token, web

pages = Blueprint("pages", __name__)


def _page(template: str, title: str) -> str:
    return render_template(template, title=title, csrf=csrf_token(),
                           judge_clear_seconds=web().judge_clear_seconds)


@pages.get("/")
def table_page() -> str:
    return _page("table.html", "Table")


@pages.get("/judge")
def judge_page() -> str:
    return _page("judge.html", "Word judge")


@pages.get("/director")
def director_page() -> str:
    return _page("director.html", "Director")


@pages.get("/favicon.ico")
def favicon() -> tuple[str, int]:
    return "", 204  # no icon: saves a 404 in every browser's log
