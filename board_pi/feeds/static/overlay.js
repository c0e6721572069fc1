// The broadcast overlay: the fields as they change (Server-Sent Events, reconnecting by itself).
"use strict";
(() => {
  const show = (fields) => {
    for (const el of document.querySelectorAll("[data-field]")) {
      const v = fields[el.dataset.field];
      if (v !== undefined && el.textContent !== v) el.textContent = v;
    }
  };
  const source = new EventSource("feed/events");
  source.addEventListener("fields", (ev) => show(JSON.parse(ev.data)));
})();
