// The table view: the board, the players and their clocks, the plays, the unseen tiles, verdicts
// and anything waiting for confirmation; redrawn from each state the table sends.
"use strict";

(() => {
  const { $, el } = BP;
  let state = null, receivedAt = 0, verdictTimer = null;
  const board = BP.board($("board"));

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
    // The server sends them in the set's own order (Ä after A, CH after C), the blanks last.
    for (const [tile, n] of Object.entries(s.unseen || {})) {
      total += n;
      const name = tile === "?" ? "blank" : tile;
      box.append(el("span", { class: "unseen-tile" + (tile.length > 1 ? " multi" : ""), title: `${n} × ${name}`,
                              "data-tile": tile },
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
    board.draw(s);
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

  BP.live(onState);
  setInterval(() => { if (state) BP.tickClocks($("players"), state, receivedAt); }, 200);
})();
