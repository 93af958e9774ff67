// The photo page: one photo, read by POST /api/read; every correction posts the photo again with
// all corrections (the server keeps nothing). Only the newest request is in flight: a correction
// typed while one runs is sent when it returns.
"use strict";

(() => {
  const MAX_UPLOAD = 20 * 1024 * 1024;
  const LOW = 0.8; // cells read with less confidence are highlighted (the CLI's threshold)
  const $ = (id) => document.getElementById(id);
  const pic = $("pic"), grid = $("grid"), status = $("status"), pad = $("pad"), fixes = $("fixes");
  const state = { file: null, name: "", bitmap: null, sets: new Map(), reply: null, selected: null,
                  mode: "answer", busy: false, again: false };
  window.photoState = state;

  const cellName = (i) => `r${Math.floor(i / 9) + 1}c${(i % 9) + 1}`;

  function say(text, isError = false) {
    status.textContent = text;
    status.classList.toggle("error", isError);
  }

  // ---------------------------------------------------------------- the grid and the pad
  const cells = [];
  for (let i = 0; i < 81; i++) {
    const d = document.createElement("div");
    d.className = "cell";
    d.dataset.cell = i;
    d.addEventListener("click", () => select(i));
    grid.appendChild(d);
    cells.push(d);
  }
  for (const d of ["1", "2", "3", "4", "5", "6", "7", "8", "9", "clear"]) {
    const b = document.createElement("button");
    b.textContent = d === "clear" ? "⌫" : d;
    b.title = d === "clear" ? "clear the cell (0)" : `set ${d}`;
    b.addEventListener("click", () => state.selected !== null && setCell(state.selected, d === "clear" ? 0 : +d));
    pad.appendChild(b);
  }

  function select(i) {
    state.selected = state.selected === i ? null : i;
    render();
  }

  function setCell(i, digit) {
    const read = state.reply && state.reply.givens ? state.reply.givens[i] : ".";
    const now = read === "." ? 0 : +read;
    if (!state.sets.has(i) && digit === now) return; // nothing changes
    state.sets.set(i, digit);
    submit();
  }

  document.addEventListener("keydown", (ev) => {
    if (state.selected === null || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const i = state.selected;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -9, ArrowDown: 9 };
    if (/^[1-9]$/.test(ev.key)) setCell(i, +ev.key);
    else if (["0", ".", " ", "Backspace", "Delete"].includes(ev.key)) setCell(i, 0);
    else if (ev.key in moves) { state.selected = (i + moves[ev.key] + 81) % 81; render(); }
    else if (ev.key === "Escape") { state.selected = null; render(); }
    else return;
    ev.preventDefault();
  });

  // ---------------------------------------------------------------- modes and inputs
  for (const b of document.querySelectorAll("#modes button")) {
    b.addEventListener("click", () => {
      state.mode = b.dataset.mode;
      for (const o of document.querySelectorAll("#modes button")) o.setAttribute("aria-pressed", o === b);
      if (state.file) submit();
    });
  }
  for (const input of [$("camera"), $("file")]) {
    input.addEventListener("change", () => input.files[0] && load(input.files[0], input.files[0].name));
  }

  async function loadExamples() {
    try {
      const res = await fetch("/api/examples");
      const { examples } = await res.json();
      for (const ex of examples) {
        const b = document.createElement("button");
        b.textContent = `Example: ${ex.name}`;
        b.addEventListener("click", async () => {
          say("Loading the example…");
          const blob = await (await fetch(ex.url)).blob();
          load(blob, ex.name);
        });
        $("examples").appendChild(b);
      }
    } catch (e) { /* no examples: the list stays empty */ }
  }

  async function load(blob, name) {
    if (blob.size > MAX_UPLOAD) {
      say(`That photo is ${(blob.size / 1048576).toFixed(1)} MB; the limit is 20 MB.`, true);
      return;
    }
    state.file = blob; state.name = name; state.sets.clear(); state.selected = null; state.reply = null;
    try {
      state.bitmap = await createImageBitmap(blob, { imageOrientation: "from-image" });
    } catch (e) {
      state.bitmap = null; // the server says why it cannot be read
    }
    submit();
  }

  // ---------------------------------------------------------------- the request
  async function submit() {
    if (!state.file) return;
    if (state.busy) { state.again = true; return; }
    state.busy = true;
    say(`Reading ${state.name}…`);
    const form = new FormData();
    form.append("photo", state.file, state.name);
    for (const [i, d] of state.sets) form.append("set", `${cellName(i)}=${d}`);
    form.append("show", state.mode);
    form.append("marks", "1");
    const t0 = performance.now();
    try {
      const res = await fetch("/api/read", { method: "POST", body: form });
      const obj = await res.json();
      if (!res.ok) {
        state.reply = null;
        say(obj.error || `the server answered ${res.status}`, true);
      } else {
        obj.round_trip_ms = performance.now() - t0;
        state.reply = obj;
        window.lastRead = obj;
      }
    } catch (e) {
      say(`No answer from the server (${e.message}).`, true);
    }
    state.busy = false;
    render();
    if (state.again) { state.again = false; submit(); }
  }

  // ---------------------------------------------------------------- drawing
  function drawPicture() {
    const ctx = pic.getContext("2d");
    const bm = state.bitmap;
    if (!bm) { ctx.clearRect(0, 0, pic.width, pic.height); return; }
    const dpr = window.devicePixelRatio || 1;
    const w = Math.min(bm.width, Math.round(pic.parentElement.clientWidth * dpr) || bm.width);
    const k = w / bm.width;
    pic.width = w; pic.height = Math.round(bm.height * k);
    ctx.drawImage(bm, 0, 0, pic.width, pic.height);
    const r = state.reply;
    if (r && r.corners) {
      const corners = r.corners.map(([x, y]) => [x * k, y * k]);
      const outline = r.status === "solved" ? ARGrid.COLORS.outline.solved : ARGrid.COLORS.outline.other;
      ARGrid.drawMarks(ctx, corners, r.marks, { outline });
    }
  }

  function render() {
    drawPicture();
    const r = state.reply;
    const givens = r && r.givens, sol = r && r.solution, conf = r && r.confidence;
    const entries = r && r.entries; // handwritten entries, where the reading tells them apart
    const marks = (r && r.marks) || {};
    const wrong = new Set(marks.mistakes || []);
    const hint = new Map((marks.small || []).filter(([, t]) => /^\d$/.test(t)));
    for (let i = 0; i < 81; i++) {
      const c = cells[i];
      let text = "", cls = "cell";
      if (givens && givens[i] !== ".") { text = givens[i]; cls += " given"; }
      else if (entries && entries[i] !== "." && entries[i] !== "0") { text = entries[i]; cls += " entry"; }
      else if (sol && state.mode === "answer") { text = sol[i]; cls += " answer"; }
      else if (hint.has(i)) { text = hint.get(i); cls += " hint"; }
      if (conf && conf[i] < LOW && !state.sets.has(i)) cls += " low";
      if (state.sets.has(i)) cls += " fixed";
      if (wrong.has(i)) cls += " mistake";
      if (state.selected === i) cls += " selected";
      c.className = cls;
      c.textContent = text;
      c.title = cellName(i) + (conf ? ` · read with ${(conf[i] * 100).toFixed(0)}% confidence` : "");
    }
    fixes.replaceChildren(...[...state.sets].map(([i, d]) => {
      const b = document.createElement("button");
      b.textContent = `${cellName(i)}=${d || "·"} ✕`;
      b.title = "undo this correction";
      b.addEventListener("click", () => { state.sets.delete(i); submit(); });
      return b;
    }));
    for (const b of pad.children) b.disabled = state.selected === null || !r;
    if (r && !state.busy) {
      const parts = [`${r.path}: ${r.status}`];
      if (r.message) parts.push(r.message);
      if (marks.text) parts.push(marks.text);
      parts.push(`${r.ms.toFixed(0)} ms on the server`);
      const low = conf ? conf.filter((c) => c < LOW).length : 0;
      if (r.status !== "solved" && givens) parts.push("click a misread cell and type the right digit");
      else if (low) parts.push(`${low} cell${low > 1 ? "s" : ""} read with low confidence (yellow)`);
      say(parts.join(" · "), r.status !== "solved");
    }
  }

  window.addEventListener("resize", () => state.bitmap && drawPicture());
  loadExamples();
  render();
})();
