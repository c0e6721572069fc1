// The table view: the board, the players and their clocks, the plays, the unseen tiles, verdicts
// and anything waiting for confirmation; redrawn from each state the table sends.
"use strict";

(() => {
  const { $, el } = BP;
  const COLUMNS = "ABCDEFGHIJKLMNO";
  const PREMIUM = { "T": ["tw", "TW"], "D": ["dw", "DW"], "*": ["start", "★"], "t": ["tl", "TL"], "d": ["dl", "DL"] };
  let state = null, receivedAt = 0, cells = [], size = 0, verdictTimer = null;

  function buildBoard(n) {
    const board = $("board");
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
    const rows = s.board || [];
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
                                        (removal.has(name) ? " removal" : "") },
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

  function drawMoves(s) {
    const list = $("moves");
    list.textContent = "";
    for (const m of s.moves || []) {
      const who = s.players[m.player] ? s.players[m.player].name : "";
      list.append(el("li", { class: "move p" + m.player },
                     el("span", { class: "who", text: who }),
                     el("span", { class: "text", text: `${m.text} ${m.score}` }),
                     el("span", { class: "total", text: String(m.total) })));
    }
    list.scrollTop = list.scrollHeight;
  }

  function drawUnseen(s) {
    const box = $("unseen");
    box.textContent = "";
    let total = 0;
    for (const [tile, n] of Object.entries(s.unseen || {})) {
      total += n;
      box.append(el("span", { class: "unseen-tile", title: `${n} × ${tile}` },
                    el("b", { text: tile }), el("small", { text: String(n) })));
    }
    $("bag").textContent = s.players && s.players.length ? `${total} unseen · ${s.bag} in the bag` : "";
  }

  function drawVerdict(s) {
    const v = $("verdict");
    if (!s.verdict) { v.hidden = true; return; }
    v.hidden = false;
    v.className = "verdict " + (s.verdict.acceptable ? "yes" : "no");
    v.textContent = s.verdict.acceptable ? "ACCEPTABLE" : "NOT ACCEPTABLE";
    clearTimeout(verdictTimer);
    verdictTimer = setTimeout(() => { v.hidden = true; }, 20000);
  }

  function drawMessages(s) {
    const list = $("messages");
    list.textContent = "";
    const msgs = (s.messages || []).slice(-3);
    for (const m of msgs) list.append(el("li", { text: m }));
    $("messages-card").hidden = msgs.length === 0;
  }

  function onState(s, at) {
    const verdictChanged = !state || JSON.stringify(state.verdict) !== JSON.stringify(s.verdict);
    state = s; receivedAt = at;
    BP.renderPlayers($("players"), s, at);
    BP.renderStatus($("status"), s);
    drawBoard(s);
    drawMoves(s);
    drawUnseen(s);
    if (verdictChanged) drawVerdict(s);
    drawMessages(s);
    const pendingKey = JSON.stringify(s.pending);
    if ($("pending").dataset.key !== pendingKey) {  // keep what someone is typing into it
      $("pending").dataset.key = pendingKey;
      BP.renderPending($("pending"), s);
    }
  }

  buildBoard(15);
  BP.live(onState);
  setInterval(() => { if (state) BP.tickClocks($("players"), state, receivedAt); }, 200);
})();
