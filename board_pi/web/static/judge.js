// The word judge screen: up to 8 words, one verdict for the play as a whole, then a clean screen.
"use strict";

(() => {
  const { $ } = BP;
  const view = document.querySelector(".judge-view");
  const clearSeconds = parseFloat(view.dataset.clearSeconds) || 8;
  const inputs = Array.from(document.querySelectorAll("input.word"));
  let clearTimer = null;

  function clearAll() {
    clearTimeout(clearTimer);
    inputs.forEach((i) => { i.value = ""; });
    $("judgement").textContent = "";
    $("judgement").className = "judgement";
    $("judge-error").textContent = "";
    inputs[0].focus();
  }

  $("judge-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const words = inputs.map((i) => i.value.trim()).filter((w) => w);
    $("judge-error").textContent = "";
    if (!words.length) { $("judge-error").textContent = "type at least one word"; return; }
    try {
      const r = await BP.api("POST", "/api/judge", { words });
      const j = $("judgement");
      j.textContent = r.verdict;
      j.className = "judgement " + (r.acceptable ? "yes" : "no");
      // Nothing of the judgement stays on the screen for the next person to see.
      clearTimeout(clearTimer);
      clearTimer = setTimeout(clearAll, clearSeconds * 1000);
    } catch (err) {
      $("judge-error").textContent = err.message;
    }
  });

  $("judge-fill").addEventListener("click", async () => {
    try {
      const r = await BP.api("GET", "/api/last-play");
      if (!r.words.length) { $("judge-error").textContent = "there is no play on the board to fill in"; return; }
      inputs.forEach((i, n) => { i.value = r.words[n] || ""; });
      $("judge-error").textContent = "";
    } catch (err) {
      $("judge-error").textContent = err.message;
    }
  });

  $("judge-clear").addEventListener("click", clearAll);
  // Letters only, shown in capitals, as on a tournament judge.
  inputs.forEach((i) => i.addEventListener("input", () => {
    const pos = i.selectionStart;
    i.value = i.value.toUpperCase().replace(/[^\p{L}]/gu, "");
    i.setSelectionRange(pos, pos);
  }));
  BP.refreshSession().catch(() => {});
  BP.api("GET", "/api/lexicons").then((r) => { $("judge-lexicon").textContent = `Lexicon: ${r.current}`; })
    .catch(() => {});
  document.getElementById("link").hidden = true;  // nothing live on this screen
  inputs[0].focus();
})();
