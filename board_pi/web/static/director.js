// The director's page: log in (or choose the first PIN), then run the table.
"use strict";

(() => {
  const { $, el, act, api } = BP;
  let state = null, receivedAt = 0, session = null;
  const board = BP.board($("board"));

  async function showSession() {
    try { session = await BP.refreshSession(); } catch (e) { return; }
    $("auth-setup").hidden = session.pin_set;
    $("setup-code").hidden = $("setup-code-help").hidden = !session.setup_code;
    $("auth-login").hidden = !session.pin_set || session.director;
    $("auth-in").hidden = !session.director;
    $("auth-error").textContent = session.wait > 0 ? `too many wrong PINs: wait ${Math.ceil(session.wait)} s` : "";
    document.body.classList.toggle("is-director", session.director);
    if (session.director) { loadLog(); loadGames(); }
  }
  document.addEventListener("bp-session", showSession);

  $("setup-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if ($("setup-pin").value !== $("setup-pin2").value) { $("auth-error").textContent = "the two PINs differ"; return; }
    try {
      const body = { pin: $("setup-pin").value };
      if (session && session.setup_code) body.code = $("setup-code").value;
      await api("POST", "/api/pin", body, { noRetry: true });
      $("setup-pin").value = $("setup-pin2").value = $("setup-code").value = "";
      BP.toast("PIN set: you are logged in", "ok");
      showSession();
    } catch (err) { $("auth-error").textContent = err.message; }
  });

  $("director-login").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await BP.login($("director-pin").value);
      $("director-pin").value = "";
      $("auth-error").textContent = "";
    } catch (err) { $("auth-error").textContent = err.message; }
  });

  $("logout").addEventListener("click", async () => {
    await act("POST", "/api/logout", {}, "logged out");
    showSession();
  });

  $("pin-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const r = await act("POST", "/api/pin", { current: $("pin-current").value, pin: $("pin-new").value }, "PIN changed");
    if (r) { $("pin-current").value = $("pin-new").value = ""; showSession(); }
  });

  // -- actions ------------------------------------------------------------------------------

  function turnPlayer() {
    if (!state || state.turn === null || state.turn === undefined) return 0;
    return state.turn;
  }
  function lastMover() {
    const m = state && state.moves && state.moves[state.moves.length - 1];
    return m ? m.player : 0;
  }

  for (const b of document.querySelectorAll("[data-action]")) {
    b.addEventListener("click", () => {
      const a = b.dataset.action;
      if (a === "pause") act("POST", "/api/pause", {}, "paused");
      else if (a === "resume") act("POST", "/api/resume", {}, "resumed");
      else if (a === "undo") { if (confirm("Undo the last event of the game?")) act("POST", "/api/undo", {}, "undone"); }
      else if (a === "hold") act("POST", "/api/hold", { player: turnPlayer() }, "play held");
      else if (a === "challenge") {
        act("POST", "/api/challenge", { player: turnPlayer() }).then((r) => { if (r) BP.toast(r.verdict, r.acceptable ? "ok" : "error"); });
      } else if (a === "accept") act("POST", "/api/accept", {}, "the game is over");
    });
  }

  $("play-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act("POST", "/api/play", { player: parseInt($("play-player").value, 10), play: $("play-text").value })
      .then((r) => { if (r && r.outcome === "play") $("play-text").value = ""; });
  });
  $("correct-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act("POST", "/api/correct", { play: $("correct-text").value }, "corrected");
  });
  $("adjust-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act("POST", "/api/adjust", { player: parseInt($("adjust-player").value, 10), points: $("adjust-points").value,
                                 reason: $("adjust-reason").value }, "score adjusted")
      .then((r) => { if (r) { $("adjust-points").value = ""; $("adjust-reason").value = ""; } });
  });
  $("end-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (confirm("End the game now?")) act("POST", "/api/end", { reason: $("end-reason").value }, "the game is over");
  });
  $("ng-tiles").addEventListener("change", () => { $("ng-tiles").dataset.touched = "1"; });
  $("new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (state && state.players && state.players.length && !state.over &&
        !confirm("A game is in progress (it stays in the journal). Start a new one?")) return;
    act("POST", "/api/game", {
      players: [$("ng-p1").value, $("ng-p2").value], lexicon: $("ng-lexicon").value, tiles: $("ng-tiles").value,
      challenge: $("ng-challenge").value, minutes: $("ng-minutes").value,
      overtime_penalty: $("ng-penalty").value, max_overtime_minutes: $("ng-limit").value,
    }, "new game started").then((r) => { if (r) loadGames(); });
  });

  $("calib-refresh").addEventListener("click", async () => {
    const img = $("calib-img");
    const r = await fetch("/api/calibration.png?t=" + Date.now(), { credentials: "same-origin", cache: "no-store" });
    if (r.ok) {
      img.src = URL.createObjectURL(await r.blob());
      img.hidden = false;
      $("calib-note").textContent = "Green: the grid; yellow: what was read; red: read with doubt.";
    } else {
      img.hidden = true;
      let msg = `the table answered ${r.status}`;
      try { msg = (await r.json()).error; } catch (e) { /* keep the status */ }
      $("calib-note").textContent = msg;
    }
  });

  async function loadLog() {
    try {
      const r = await api("GET", "/api/judge/log");
      const body = $("log-body");
      body.textContent = "";
      for (const a of r.log.slice().reverse()) {
        body.append(el("tr", {}, el("td", { text: a.time ? new Date(a.time * 1000).toLocaleTimeString() : "" }),
                       el("td", { text: a.words.join(" ") }),
                       el("td", { class: a.acceptable ? "yes" : "no", text: a.acceptable ? "ACCEPTABLE" : "NOT ACCEPTABLE" }),
                       el("td", { text: a.lexicon })));
      }
    } catch (e) { /* not the director: nothing to show */ }
  }
  $("log-refresh").addEventListener("click", loadLog);

  async function loadGames() {
    try {
      const r = await api("GET", "/api/games");
      const list = $("games");
      list.textContent = "";
      for (const g of r.games.slice().reverse().slice(0, 20)) {
        list.append(el("li", { text: `#${g.id} ${g.players.join(" v ")} — ${new Date(g.created * 1000).toLocaleString()}` +
                                     (g.finished ? "" : " (unfinished)") + (g.id === r.current ? " ← this game" : "") }));
      }
      for (const a of (r.archive || []).slice(0, 50)) {
        const who = (a.players || []).join(" v ");
        const scores = (a.scores || []).join("–");
        list.append(el("li", {}, el("a", { href: `/api/archive/${encodeURIComponent(a.id)}.gcg`,
                                           text: `${a.file}`, download: `${a.id}.gcg` }),
                       document.createTextNode(` ${who} ${scores}`)));
      }
    } catch (e) { /* shown again on the next refresh */ }
  }

  async function loadLexicons() {
    try {
      const r = await api("GET", "/api/lexicons");
      const sel = $("ng-lexicon");
      sel.textContent = "";
      for (const name of r.lexicons) sel.append(el("option", { value: name, text: name, selected: name === r.current }));
    } catch (e) { /* keep the list empty: the default lexicon is used */ }
  }

  function fillPlayers(sel, s) {
    const keep = sel.value;
    sel.textContent = "";
    (s.players || []).forEach((p, i) => sel.append(el("option", { value: i, text: p.name })));
    if (keep !== "" && keep < (s.players || []).length) sel.value = keep;
  }

  function onState(s, at) {
    const playersChanged = !state || JSON.stringify((state.players || []).map((p) => p.name)) !==
                                     JSON.stringify((s.players || []).map((p) => p.name));
    // The new-game form offers the set the table plays now, until the director picks another.
    const tiles = $("ng-tiles");
    if (s.tile_set && !tiles.dataset.touched) tiles.value = s.tile_set.name;
    state = s; receivedAt = at;
    BP.renderPlayers($("players"), s, at);
    BP.renderStatus($("status"), s);
    board.draw(s);
    const pendingKey = JSON.stringify(s.pending);
    if ($("pending").dataset.key !== pendingKey) {
      $("pending").dataset.key = pendingKey;
      BP.renderPending($("pending"), s);
    }
    if (playersChanged) {
      fillPlayers($("play-player"), s);
      fillPlayers($("adjust-player"), s);
      const row = $("press-row");
      row.textContent = "";
      (s.players || []).forEach((p, i) => {
        row.append(el("button", { type: "button", onclick: () => act("POST", "/api/press", { player: i }) }, `${p.name} presses`));
      });
      if (s.players && s.players.length >= 2) { $("ng-p1").value ||= s.players[0].name; $("ng-p2").value ||= s.players[1].name; }
    }
    if (s.players && s.players.length && s.turn !== null && s.turn !== undefined) $("play-player").value = s.turn;
    // The last play proper (not a pass, an exchange or a score adjustment).
    const last = (s.moves || []).slice().reverse().find((m) => /^([A-Z]\d{1,2}|\d{1,2}[A-Z]) /.test(m.text));
    $("correct-text").placeholder = last ? `last play: ${last.text} — type it corrected` : "no play to correct";
    // Start from the last play as written (with the board's tiles in brackets taken out), so a
    // misread square or a blank's letter is one character to change.
    const lastText = last ? last.text.replace(/\(([^)]*)\)/g, (m, inner) => ".".repeat(inner.length)) : "";
    if (document.activeElement !== $("correct-text") && $("correct-text").dataset.from !== lastText) {
      $("correct-text").value = lastText;
      $("correct-text").dataset.from = lastText;
    }
    $("gcg-link").hidden = !(s.players && s.players.length);
  }

  showSession();
  loadLexicons();
  BP.live(onState, (type) => { if (type === "verdict" || type === "new_game") loadLog(); });
  setInterval(() => { if (state) BP.tickClocks($("players"), state, receivedAt); }, 200);
})();
