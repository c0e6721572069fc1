// board-pi hub: the dashboard, one table, results and the director's pairings. The pages follow
// the hub's event stream and fetch what changed; clocks count down by themselves between events.
"use strict";

const HUB = (() => {
  const $ = (id) => document.getElementById(id);
  let csrf = document.querySelector('meta[name="csrf-token"]').content;
  const page = document.body.dataset.page;

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

  function toast(message, kind) {
    const t = $("toast");
    t.textContent = message;
    t.className = "toast show " + (kind || "");
    setTimeout(() => { t.className = "toast"; }, kind === "error" ? 6000 : 3000);
  }

  async function api(method, path, body) {
    const init = { method, credentials: "same-origin", cache: "no-store", headers: {} };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (method !== "GET") init.headers["X-CSRF-Token"] = csrf;
    const r = await fetch(path, init);
    const data = await r.json().catch(() => ({}));
    if (data.csrf) csrf = data.csrf;
    if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status, data });
    return data;
  }

  function clockText(ms) {
    const neg = ms < 0;
    const s = Math.floor(Math.abs(ms) / 1000);
    return (neg ? "-" : "") + Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // Squares' colours by premium, drawn from the board's rows (lower case: a blank).
  function drawBoard(canvas, rows, last) {
    const ctx = canvas.getContext("2d");
    const n = 15, size = canvas.width / n;
    ctx.fillStyle = "#0f6b57";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    const lastSet = new Set(last || []);
    const cols = "ABCDEFGHIJKLMNO";
    (rows || []).forEach((row, r) => {
      const tiles = row.match(/\[[^\]]+\]|./g) || [];
      tiles.forEach((t, c) => {
        const x = c * size, y = r * size;
        if (t === ".") {
          ctx.fillStyle = "#d9cfb3";
          ctx.fillRect(x + 0.5, y + 0.5, size - 1, size - 1);
          return;
        }
        const face = t.startsWith("[") ? t.slice(1, -1) : t;
        ctx.fillStyle = lastSet.has(cols[c] + (r + 1)) ? "#ffd34d" : "#f5deb0";
        ctx.fillRect(x + 0.5, y + 0.5, size - 1, size - 1);
        if (size >= 8) {
          ctx.fillStyle = face === face.toLowerCase() ? "#b23b2f" : "#1d1d1b";
          ctx.font = `bold ${Math.floor(size * 0.7)}px sans-serif`;
          ctx.textAlign = "center";
          ctx.textBaseline = "middle";
          ctx.fillText(face.toUpperCase(), x + size / 2, y + size / 2 + 1);
        }
      });
    });
  }

  // -- the live stream ---------------------------------------------------------------------
  function follow(onEvent) {
    let source = null;
    const link = $("link");
    const open = () => {
      source = new EventSource("/api/events");
      source.onopen = () => { link.textContent = "live"; link.className = "link up"; };
      source.onerror = () => { link.textContent = "reconnecting…"; link.className = "link down"; };
      for (const kind of ["state", "event", "online", "result", "pairings", "hub"]) {
        source.addEventListener(kind, (ev) => onEvent(kind, JSON.parse(ev.data)));
      }
    };
    open();
  }

  // Clocks tick locally from the last report (the running side only).
  let ticking = [];
  setInterval(() => {
    const now = Date.now();
    for (const t of ticking) t.el.textContent = clockText(t.ms - (now - t.at));
  }, 250);

  // -- the dashboard -------------------------------------------------------------------------
  function card(t) {
    const cls = ["tcard"];
    if (!t.online) cls.push("offline");
    if (t.finished) cls.push("finished");
    if (t.pending) cls.push("waiting");
    const state = !t.online ? "offline" : t.finished ? "finished" : t.pending ? "waiting for the players"
      : t.game === null || t.game === undefined ? "no game" : "playing";
    const canvas = el("canvas", { width: 150, height: 150, "aria-label": `table ${t.table}'s board` });
    drawBoard(canvas, t.board, t.last_play);
    const players = t.players.map((name, i) => {
      const c = t.clocks[i] || {};
      const clock = el("span", { class: "c" + ((c.remaining_ms || 0) < 0 ? " overtime" : ""),
                                 text: c.remaining_ms === undefined || c.remaining_ms === null ? "" : clockText(c.remaining_ms) });
      if (c.running && t.online && !t.finished) ticking.push({ el: clock, ms: c.remaining_ms, at: Date.now() });
      return el("div", { class: "p" + (t.turn === i && !t.finished ? " turn" : "") },
        el("span", { class: "n", text: name }), el("span", { class: "s", text: String(t.scores[i]) }), clock);
    });
    return el("a", { class: cls.join(" "), href: `/tables/${t.table}`, "data-table": t.table },
      el("div", { class: "head" }, el("span", { text: `Table ${t.table}` }), el("span", { class: "state", text: state })),
      canvas, ...players,
      t.pending ? el("div", { class: "pending", text: "to confirm: " + (t.pending.message || t.pending.kind) }) : null,
      t.behind ? el("div", { class: "state", text: `${t.behind} events on their way` }) : null);
  }

  async function dashboard() {
    let timer = null;
    const load = async () => {
      const tables = await api("GET", "/api/tables");
      ticking = [];
      $("tables").replaceChildren(...tables.map(card));
      const off = tables.filter((t) => !t.online).length;
      $("summary").textContent = `${tables.length} tables, ${off} offline, ${tables.filter((t) => t.finished).length} finished`;
    };
    // Many events in a burst (a table catching up) make one reload.
    const soon = () => { if (!timer) timer = setTimeout(() => { timer = null; load(); }, 100); };
    await load();
    follow((kind) => { if (kind !== "hub") soon(); });
  }

  // -- one table ----------------------------------------------------------------------------
  async function tablePage() {
    const n = document.body.dataset.table;
    const load = async () => {
      let t;
      try { t = await api("GET", `/api/tables/${n}`); } catch (e) { toast(e.message, "error"); return; }
      const s = t.snapshot || {};
      $("offline").hidden = t.online;
      ticking = [];
      $("players").replaceChildren(...(s.players || []).map((p, i) => {
        const clock = el("div", { class: "clock", text: clockText(p.clock.remaining_ms) });
        if (p.clock.running && t.online) ticking.push({ el: clock, ms: p.clock.remaining_ms, at: Date.now() });
        return el("div", { class: "player" + (s.turn === i ? " turn" : "") },
          el("div", { class: "name", text: p.name }), el("div", { class: "score", text: String(p.score) }), clock);
      }));
      $("pending").hidden = !s.pending;
      $("pending").textContent = s.pending ? "Waiting for the players: " + s.pending.message : "";
      drawBoard($("board"), s.board, s.last_play);
      $("moves").replaceChildren(...(s.moves || []).map((m) =>
        el("li", { text: `${(s.players[m.player] || {}).name}: ${m.text} ${m.score} (${m.total})` })));
      $("unseen").textContent = Object.entries(s.unseen || {}).map(([k, v]) => k.repeat(v)).join("");
    };
    // The director's controls of this table: sent through the broker, done by the table itself.
    document.querySelectorAll("[data-control]").forEach((b) => b.addEventListener("click", async () => {
      const action = b.dataset.control;
      let reason = "";
      if (action === "end") {
        reason = prompt("End this table's game now. Reason (kept with the game):", "ended by the director");
        if (reason === null) return;
      }
      try {
        const r = await api("POST", `/api/tables/${n}/control`, { action, reason });
        toast(r.sent ? `${action}: sent to table ${n}` : `${action}: the broker did not take it; try again`,
              r.sent ? "" : "error");
      } catch (e) { toast(e.status === 401 ? "log in as the director first (Director page)" : e.message, "error"); }
    }));
    let timer = null;
    await load();
    follow((kind, data) => {
      if (data.table !== undefined && String(data.table) !== n) return;
      if (!timer) timer = setTimeout(() => { timer = null; load(); }, 100);
    });
  }

  // -- results ------------------------------------------------------------------------------
  async function resultsPage() {
    const load = async () => {
      const r = await api("GET", "/api/results");
      $("standings").replaceChildren(...r.standings.map((s, i) => el("tr", {},
        el("td", { text: String(i + 1) }), el("td", { text: s.player }), el("td", { text: String(s.wins) }),
        el("td", { text: String(s.losses) }), el("td", { text: (s.spread > 0 ? "+" : "") + s.spread }),
        el("td", { text: String(s.games) }))));
      $("results").replaceChildren(...r.results.map((g) => el("tr", {},
        el("td", { text: g.round === null ? "" : String(g.round) }), el("td", { text: String(g.table) }),
        el("td", { text: g.players[0] }), el("td", { text: String(g.scores[0]) }),
        el("td", { text: g.players[1] || "" }), el("td", { text: g.scores[1] === undefined ? "" : String(g.scores[1]) }))));
    };
    await load();
    follow((kind) => { if (kind === "result") load(); });
  }

  // -- the director ---------------------------------------------------------------------------
  async function directorPage() {
    const refresh = async () => {
      const s = await api("GET", "/api/session");
      $("login-state").textContent = s.director ? "Logged in as the director." :
        s.pin_set ? "Log in with the director's PIN." : "No PIN yet: choose one (4 to 32 digits)." +
        (s.setup_code ? " Away from the hub's machine, give the one-time code it printed at start." : "");
      $("code").hidden = !(s.setup_code && !s.pin_set);
      $("login-button").textContent = s.pin_set ? "Log in" : "Set the PIN";
      $("logout").hidden = !s.director;
      $("login-form").dataset.pinSet = s.pin_set ? "1" : "";
      const tables = Object.fromEntries((await api("GET", "/api/tables")).map((t) => [t.table, t]));
      const sent = await api("GET", "/api/pairings");
      $("sent").replaceChildren(...sent.map((p) => {
        const t = tables[p.table] || {};
        const here = (t.pairing && t.pairing.id === p.id) ? "playing it" : (t.next_pairing && t.next_pairing.id === p.id) ? "next game" : "";
        return el("tr", {}, el("td", { text: String(p.round) }), el("td", { text: String(p.table) }),
          el("td", { text: p.players.join(" - ") }), el("td", { text: p.sent ? "yes" : "not yet" }), el("td", { text: here }));
      }));
    };
    $("login-form").onsubmit = async (ev) => {
      ev.preventDefault();
      try {
        if ($("login-form").dataset.pinSet) await api("POST", "/api/login", { pin: $("pin").value });
        else await api("POST", "/api/pin", { pin: $("pin").value, code: $("code").value });
        toast("logged in");
      } catch (e) { toast(e.message, "error"); }
      refresh();
    };
    $("logout").onclick = async () => { await api("POST", "/api/logout", {}); refresh(); };
    $("import").onchange = async () => {
      const f = $("import").files[0];
      if (f) $("pairings").value = await f.text();
    };
    $("pairings-form").onsubmit = async (ev) => {
      ev.preventDefault();
      $("pairings-error").textContent = "";
      try {
        const r = await api("POST", "/api/pairings", { round: parseInt($("round").value, 10), pairings: $("pairings").value, now: $("now").checked });
        toast(`sent to ${r.sent.filter((s) => s.sent).length} tables`);
      } catch (e) { $("pairings-error").textContent = e.message; }
      refresh();
    };
    await refresh();
    follow((kind) => { if (kind === "state" || kind === "pairings") refresh(); });
  }

  const pages = { dashboard, table: tablePage, results: resultsPage, director: directorPage };
  if (pages[page]) pages[page]().catch((e) => toast(e.message, "error"));
  return { drawBoard, clockText };
})();
