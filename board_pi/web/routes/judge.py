"""The word judge: the play as a whole, acceptable or not, never which word; and its log."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from ...serve.requests import ApiError, body
from ...serve.signin import director_required, need_director
from ..access import table, web

judge = Blueprint("judge", __name__)

MAX_WORD = 15  # the board's width


@judge.post("/api/judge")
def api_judge() -> Response:
    if web().judge_needs_pin:
        need_director()
    data = body()
    words = data.get("words")
    if isinstance(words, str):
        words = words.replace(",", " ").split()
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        raise ApiError(400, "words must be a list of words")
    words = [w.strip() for w in words if w.strip()]
    if any(len(w) > MAX_WORD for w in words):
        raise ApiError(400, f"a word has at most {MAX_WORD} letters")
    verdict = table().judge_words(words)
    return jsonify({"verdict": str(verdict), "acceptable": verdict.acceptable, "words": verdict.words})


@judge.get("/api/judge/log")
@director_required
def api_judge_log() -> Response:
    return jsonify({"log": table().judge_log()})
