// board-pi status page: what every page shares. The API calls (with the CSRF token and the
// director's login when a call needs it), the live event stream with reconnection and a polling
// fallback, and the players' bar with clocks that count by themselves between events.
"use strict";

const BP = (() => {
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  let toastTimer = null;
  function toast(message, kind) {
    const t = $("toast");
    t.textContent = message;
    t.className = "toast show " + (kind || "");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.className = "toast"; }, kind === "error" ? 6000 : 3000);
  }

  // -- the director's login -----------------------------------------------------------------

  function askPin(why) {
    const dlg = $("login-dialog");
    $("login-why").textContent = why || "This needs the director's PIN.";
    $("login-error").textContent = "";
    $("login-pin").value = "";
    return new Promise((resolve) => {
      const done = (ok) => {
        $("login-form").onsubmit = null;
        $("login-cancel").onclick = null;
        dlg.close();
        resolve(ok);
      };
      $("login-form").onsubmit = async (ev) => {
        ev.preventDefault();
        try {
          await login($("login-pin").value);
          done(true);
        } catch (err) {
          $("login-error").textContent = err.message;
        }
      };
      $("login-cancel").onclick = () => done(false);
      dlg.showModal();
      $("login-pin").focus();
    });
  }

  async function login(pin) {
    const r = await api("POST", "/api/login", { pin }, { noRetry: true });
    document.dispatchEvent(new CustomEvent("bp-session"));
    return r;
  }

  async function refreshSession() {
    const r = await fetch("/api/session", { credentials: "same-origin", cache: "no-store" });
    const s = await r.json();
    csrf = s.csrf;
    return s;
  }

  // -- the API ------------------------------------------------------------------------------

  async function api(method, path, body, opts) {
    opts = opts || {};
    const init = { method, credentials: "same-origin", cache: "no-store",
                   headers: { "Accept": "application/json" } };
    if (method !== "GET") {
      init.headers["Content-Type"] = "application/json";
      init.headers["X-CSRF-Token"] = csrf;
      init.body = JSON.stringify(body || {});
    }
    let r;
    try {
      r = await fetch(path, init);
    } catch (e) {
      throw new Error("the table cannot be reached: check the network");
    }
    let data = {};
    try { data = await r.json(); } catch (e) { data = {}; }
    if (r.ok) {
      if (data.csrf) csrf = data.csrf;
      return data;
    }
    if (r.status === 403 && !opts.noRetry) {  // the session changed (logged out, PIN changed)
      await refreshSession();
      return api(method, path, body, { ...opts, noRetry: true });
    }
    if (r.status === 401 && data.login && !opts.noRetry) {
      const s = await refreshSession();
      if (!s.pin_set) throw new Error("no director's PIN is set yet: set one on the Director page");
      if (await askPin(data.error)) return api(method, path, body, { ...opts, noRetry: true });
      throw new Error("not done: the director's PIN is needed");
    }
    throw new Error(data.error || `the table answered ${r.status}`);
  }

  // Run an action from a button or form, showing what came of it.
  async function act(method, path, body, okMessage) {
    try {
      const r = await api(method, path, body);
      toast(okMessage || r.message || "done", "ok");
      return r;
    } catch (err) {
      toast(err.message, "error");
      return null;
    }
  }

  // -- the live stream ----------------------------------------------------------------------

  // Calls onState(snapshot) with every new state; onEvent(type, data) with every other event.
  function live(onState, onEvent) {
    let seq = null, source = null, pollTimer = null, watchdog = null, lastHeard = Date.now();
    const link = $("link");
    const setLink = (text, cls) => { link.textContent = text; link.className = "link " + cls; };

    function handleState(s) {
      if (typeof s.seq === "number") seq = Math.max(seq || 0, s.seq);
      onState(s, performance.now());
    }

    async function poll() {
      try {
        const r = await fetch("/api/state", { cache: "no-store" });
        if (r.ok) { handleState(await r.json()); setLink("polling", "poll"); }
        else setLink("offline", "down");
      } catch (e) { setLink("offline", "down"); }
    }

    function startPolling() {
      if (pollTimer) return;
      poll();
      pollTimer = setInterval(poll, 3000);
      setTimeout(() => { clearInterval(pollTimer); pollTimer = null; connect(); }, 30000);
    }

    function connect() {
      if (source) source.close();
      const url = "/api/events" + (seq !== null ? "?since=" + seq : "");
      source = new EventSource(url);
      source.onopen = () => { setLink("live", "up"); lastHeard = Date.now(); };
      source.onerror = () => {
        if (source.readyState === EventSource.CLOSED) { source = null; setLink("polling", "poll"); startPolling(); }
        else setLink("reconnecting…", "down");  // the browser retries by itself with Last-Event-ID
      };
      const heard = (ev) => {
        lastHeard = Date.now();
        if (ev.lastEventId) seq = Math.max(seq || 0, parseInt(ev.lastEventId, 10));
      };
      source.addEventListener("state", (ev) => { heard(ev); setLink("live", "up"); handleState(JSON.parse(ev.data)); });
      source.addEventListener("ping", (ev) => { heard(ev); setLink("live", "up"); });
      for (const type of ["verdict", "play", "pass", "exchange", "pending", "new_game", "undo", "corrected",
                          "adjusted", "game_over", "paused", "resumed", "hold", "clock"]) {
        source.addEventListener(type, (ev) => { heard(ev); if (onEvent) onEvent(type, JSON.parse(ev.data)); });
      }
    }

    // A stream that went silent (a dropped Wi-Fi link that never said so) is reopened.
    watchdog = setInterval(() => {
      if (source && Date.now() - lastHeard > 45000) { setLink("reconnecting…", "down"); connect(); }
    }, 5000);
    connect();
    return { reconnect: connect };
  }

  // -- the board ---------------------------------------------------------------------------

  const COLUMNS = "ABCDEFGHIJKLMNO";
  const PREMIUM = { "T": ["tw", "TW"], "D": ["dw", "DW"], "*": ["start", "★"], "t": ["tl", "TL"], "d": ["dl", "DL"] };

  // A board drawn into ``board``: premiums, tiles with their values, blanks, the last play, and
  // the tiles waiting for confirmation. Returns {draw(state)}.
  function makeBoard(board) {
    let cells = [], size = 0;
    function buildBoard(n) {
      board.textContent = "";
      board.style.setProperty("--n", n);
      cells = [];
      board.append(el("div", { class: "coord corner" }));
      for (let c = 0; c < n; c++) board.append(el("div", { class: "coord col", text: COLUMNS[c] }));
      for (let r = 0; r < n; r++) {
        board.append(el("div", { class: "coord row", text: String(r + 1) }));
        const row = [];
        for (let c = 0; c < n; c++) {
          const cell = el("div", { class: "sq", "data-square": COLUMNS[c] + (r + 1) });
          board.append(cell);
          row.push(cell);
        }
        cells.push(row);
      }
      size = n;
    }

    function drawBoard(s) {
      // Square by square: a two-letter tile (CH, LL, IJ) is one square; older servers send rows only.
      const rows = s.squares || (s.board || []).map((row) => Array.from(row));
      if (rows.length !== size) buildBoard(rows.length);
      const premiums = s.premiums || [];
      const last = new Set(s.last_play || []);
      const removal = new Set(s.removal || []);
      const pendingTiles = (s.pending && s.pending.tiles) || {};
      const doubtful = new Set((s.pending && s.pending.doubtful) || []);
      for (let r = 0; r < rows.length; r++) {
        for (let c = 0; c < rows.length; c++) {
          const cell = cells[r][c];
          const name = COLUMNS[c] + (r + 1);
          const ch = rows[r][c];
          const prem = PREMIUM[(premiums[r] || "")[c]];
          let cls = "sq" + (prem ? " " + prem[0] : "");
          cell.textContent = "";
          if (ch !== ".") {
            const blank = ch === ch.toLowerCase();
            const letter = ch.toUpperCase();
            const value = blank ? 0 : (s.values || {})[letter];
            const tile = el("div", { class: "tile" + (blank ? " blank" : "") + (last.has(name) ? " last" : "") +
                                          (removal.has(name) ? " removal" : "") + (letter.length > 1 ? " multi" : ""),
                                     title: blank ? `a blank played as ${letter}` : `${letter}, ${value} points` },
                            el("span", { class: "letter", text: letter }),
                            el("span", { class: "value", text: blank ? "" : String(value ?? "") }));
            cell.append(tile);
            cls += " filled";
          } else if (pendingTiles[name]) {
            const t = pendingTiles[name];
            cell.append(el("div", { class: "tile ghost" + (doubtful.has(name) ? " doubtful" : "") },
                           el("span", { class: "letter", text: t === "?" ? "?" : t.toUpperCase() }),
                           el("span", { class: "value", text: "" })));
          } else if (prem) {
            cell.append(el("span", { class: "prem", text: prem[1] }));
          }
          if (doubtful.has(name)) cls += " doubtful";
          cell.className = cls;
        }
      }
    }

    buildBoard(15);
    return { draw: drawBoard };
  }

  // -- clocks and players -------------------------------------------------------------------

  function clockText(ms) {
    const neg = ms < 0;
    const total = Math.floor(Math.abs(ms) / 1000 + (neg ? 0 : 0.999));
    const m = Math.floor(total / 60), s = total % 60;
    return (neg ? "−" : "") + m + ":" + String(s).padStart(2, "0");
  }

  // The state as it stands now: the running clock has gone on since the snapshot arrived.
  function clockNow(state, i, receivedAt) {
    const c = state.players[i].clock;
    let ms = c.remaining_ms;
    if (c.running && state.clock && state.clock.phase === "running") ms -= performance.now() - receivedAt;
    let penalty = c.overtime_penalty;
    const per = state.clock && state.clock.control ? state.clock.control.overtime_penalty : null;
    if (ms < 0 && per !== null) penalty = Math.max(penalty, Math.ceil(-ms / 60000) * per);
    return { ms, penalty };
  }

  function renderPlayers(container, state, receivedAt) {
    container.textContent = "";
    if (!state.players || !state.players.length) {
      container.append(el("div", { class: "no-game", text: "No game yet. The director starts one on the Director page." }));
      return;
    }
    state.players.forEach((p, i) => {
      const turn = state.turn === i;
      const card = el("div", { class: "player" + (turn ? " turn" : "") + (p.clock.running ? " running" : ""),
                               "data-player": i },
        el("div", { class: "name" }, el("span", { class: "turn-mark", text: turn ? "▶ " : "" }), p.name),
        el("div", { class: "score", "data-role": "score", text: String(p.score) }),
        el("div", { class: "clock", "data-role": "clock" }),
        el("div", { class: "penalty", "data-role": "penalty" }));
      container.append(card);
    });
    tickClocks(container, state, receivedAt);
  }

  function tickClocks(container, state, receivedAt) {
    if (!state.players) return;
    state.players.forEach((p, i) => {
      const card = container.querySelector(`[data-player="${i}"]`);
      if (!card) return;
      const { ms, penalty } = clockNow(state, i, receivedAt);
      const clock = card.querySelector('[data-role="clock"]');
      clock.textContent = clockText(ms);
      const low = state.clock && state.clock.control && ms > 0 && ms <= state.clock.control.low_time_seconds * 1000;
      clock.className = "clock" + (ms < 0 ? " overtime" : "") + (low ? " low" : "") + (p.clock.flagged ? " flagged" : "");
      card.querySelector('[data-role="penalty"]').textContent =
        penalty ? `overtime −${penalty}` : (p.clock.flagged ? "flagged" : "");
    });
  }

  const PHASES = { ready: "The clock has not started: the first press starts it.", paused: "Paused by the director.",
                   challenge: "Challenge: both clocks stopped.", out_play: "Out-play: both clocks stopped while the opponent decides.",
                   flagged: "A player is over the overtime limit.", ended: "The clocks are stopped." };

  function renderStatus(node, state) {
    node.textContent = "";
    if (!state.players || !state.players.length) return;
    let text = "";
    if (state.over) {
      const w = (state.winners || []).map((i) => state.players[i].name);
      text = "Game over" + (w.length === 1 ? ` — ${w[0]} wins` : w.length > 1 ? " — a tie" : "");
    } else if (state.clock) {
      if (state.clock.hold) text = `${state.players[state.clock.hold.by].name} holds the play` +
        (state.clock.may_draw ? " (tiles may be drawn)" : "");
      else text = PHASES[state.clock.phase] || `${state.players[state.turn].name} to play`;
    }
    const rules = state.rules ? `lexicon: ${state.rules.lexicon || "?"} · ${String(state.rules.challenge).replace("_", " ")} challenge` : "";
    node.append(el("span", { class: "phase", text }), el("span", { class: "rules", text: rules }));
  }

  // What the table needs the players (or the director) to confirm.
  function renderPending(node, state) {
    const p = state.pending;
    node.hidden = !p;
    node.textContent = "";
    if (!p) return;
    const who = state.players[p.player] ? state.players[p.player].name : "";
    node.append(el("h2", { text: "Please confirm" + (who ? ` — ${who}'s turn` : "") }),
                el("p", { class: "pending-message", text: p.message }));
    if (p.kind === "blank") {
      const row = el("div", { class: "row" });
      for (const opt of p.options || []) {
        const letters = {};
        p.doubtful.forEach((sq, i) => { letters[sq] = opt[i]; });
        row.append(el("button", { type: "button", class: "big", "data-blank-option": opt,
                                  onclick: () => act("POST", "/api/blanks", { letters }) },
                      p.doubtful.map((sq, i) => `${opt[i]} on ${sq}`).join(", ")));
      }
      const form = el("form", { class: "row" });
      const inputs = p.doubtful.map((sq) => el("input", { "aria-label": `blank on ${sq}`, placeholder: "?",
                                                          maxlength: 1, class: "letter-input", "data-square": sq }));
      form.append(el("span", { text: (p.options || []).length ? "or type it:" : "type it:" }));
      inputs.forEach((input) => form.append(el("label", {}, input.dataset.square + " ", input)));
      form.append(el("button", { type: "submit", text: "Set the blank" }));
      form.onsubmit = (ev) => {
        ev.preventDefault();
        const letters = {};
        inputs.forEach((i) => { letters[i.dataset.square] = i.value; });
        act("POST", "/api/blanks", { letters });
      };
      node.append(row, form);
    } else if (p.kind === "reading" || p.kind === "reread") {
      const form = el("form", { class: "pending-tiles" });
      const squares = Object.keys(p.tiles || {}).sort();
      const inputs = [];
      for (const sq of squares) {
        const input = el("input", { value: p.tiles[sq], maxlength: 1, class: "letter-input", "data-square": sq,
                                    "aria-label": `tile on ${sq}` });
        inputs.push(input);
        form.append(el("label", { class: (p.doubtful || []).includes(sq) ? "doubtful" : "" }, sq + " ", input));
      }
      if (squares.length) {
        form.append(el("button", { type: "submit", class: "big", text: "Confirm these tiles" }));
        form.onsubmit = (ev) => {
          ev.preventDefault();
          const tiles = {};
          inputs.forEach((i) => { if (i.value.trim()) tiles[i.dataset.square] = i.value.trim(); });
          act("POST", "/api/confirm", { tiles }, "confirmed");
        };
        node.append(form);
      }
      const enter = el("form", { class: "row" });
      const text = el("input", { placeholder: "or type the play: 8D QUITE", "aria-label": "the play", maxlength: 40,
                                 class: "play-input" });
      enter.append(text, el("button", { type: "submit", text: "Enter the play" }),
                   el("button", { type: "button", class: "quiet", text: "It was a pass",
                                  onclick: () => act("POST", "/api/confirm", { tiles: {} }, "pass recorded") }));
      enter.onsubmit = (ev) => { ev.preventDefault(); act("POST", "/api/play", { player: p.player, play: text.value }); };
      node.append(enter);
    } else if (p.kind === "racks") {
      const form = el("form", { class: "row" });
      const inputs = state.players.map((pl, i) => el("input", { placeholder: `${pl.name}'s rack`, "data-player": i,
                                                                maxlength: 7, "aria-label": `${pl.name}'s rack` }));
      form.append(...inputs, el("button", { type: "submit", text: "Give the racks" }));
      form.onsubmit = (ev) => {
        ev.preventDefault();
        const racks = {};
        inputs.forEach((i) => { racks[i.dataset.player] = i.value; });
        act("POST", "/api/racks", { racks }, "racks recorded");
      };
      node.append(form);
    }
  }

  return { $, el, api, act, toast, live, login, refreshSession, askPin, clockText, renderPlayers, tickClocks,
           renderStatus, renderPending, board: makeBoard, csrf: () => csrf };
})();
