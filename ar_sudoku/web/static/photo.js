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
                  mode: "answer", busy: false, again: false, edit: 0, setsBy: new Map(), killer: null };
  window.photoState = state;

  // A page of several puzzles: every one is drawn on the photo, and the grid below edits one of them
  // (state.edit, chosen by a button or a tap on the photo), each with its own corrections (state.sets is
  // the edited one's; state.setsBy keeps the others').
  const puzzlesOf = (r) => (r ? (r.puzzles && r.puzzles.length ? r.puzzles : [r]) : []);
  const several = () => puzzlesOf(state.base).length > 1;
  const nth = (r) => { const all = puzzlesOf(r); return all[Math.min(state.edit, all.length - 1)] || null; };
  const current = () => nth(state.reply);

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
    d.addEventListener("click", (ev) => {  // on a killer page, a tap near an edge parts or joins two cells
      const j = state.killer ? ARKiller.edgeAt(ev, d, i) : null;
      if (j === null) { select(i); return; }
      ARKiller.toggle(state.killer, i, j);
      submit();
    });
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

  // A killer page's sums: typed for the selected cell into the box under the grid (empty: no sum there).
  const cageSum = document.createElement("p");
  cageSum.className = "cagesum";
  cageSum.hidden = true;
  cageSum.innerHTML = '<label>Cage sum in the selected cell <input type="number" min="1" max="45" ' +
                      'inputmode="numeric"></label> <button type="button">Cages as read</button>';
  pad.after(cageSum);
  const sumInput = cageSum.querySelector("input");
  sumInput.addEventListener("change", () => {
    const i = state.selected, v = parseInt(sumInput.value, 10);
    if (i === null || !state.killer) return;
    const sum = v >= 1 && v <= 45 ? v : undefined;
    if (state.killer.sums.get(i) === sum) return; // no change (the box left after Enter says "change" again)
    if (sum !== undefined) state.killer.sums.set(i, sum); else state.killer.sums.delete(i);
    state.killer.edited = true;
    submit();
  });
  cageSum.querySelector("button").addEventListener("click", () => {
    const base = nth(state.base);
    if (base && base.cages) { state.killer = ARKiller.fromCages(base.cages); submit(); }
  });

  // No grid in the photo (or no photo yet): the grid is empty and what is typed is the puzzle.
  const manual = () => !state.file || state.failed || (state.base && state.base.status === "no_grid");
  const typing = () => manual() || !state.reply || state.reply.status === "no_grid";

  // The digit the photo was read with in cell i (0 for a blank), before any correction.
  function readDigit(i) {
    const base = nth(state.base);
    if (!base) return 0;
    const g = base.givens && base.givens[i], e = base.entries && base.entries[i];
    if (g && g !== ".") return +g;
    if (e && e !== "." && e !== "0") return +e;
    return 0;
  }

  // A correction that restores what was read is no correction: it is dropped, never left as a chip.
  function setCell(i, digit) {
    const was = state.sets.has(i) ? state.sets.get(i) : readDigit(i);
    if (digit === was) return; // nothing changes
    if (digit === readDigit(i)) state.sets.delete(i);
    else state.sets.set(i, digit);
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

  function selectPuzzle(k) {
    if (k === state.edit) return;
    state.setsBy.set(state.edit, state.sets);
    state.edit = k;
    state.sets = state.setsBy.get(k) || new Map();
    state.selected = null;
    render();
  }

  // A tap on the photo inside a puzzle's outline: the grid below edits that puzzle.
  pic.addEventListener("click", (ev) => {
    if (!several() || !state.reply) return;
    const rect = pic.getBoundingClientRect();
    const x = (ev.clientX - rect.left) * (pic.width / rect.width), y = (ev.clientY - rect.top) * (pic.height / rect.height);
    const k = pic.width / ((state.bitmap && state.bitmap.width) || pic.width);
    puzzlesOf(state.reply).forEach((p, n) => {
      if (p.corners && inside(p.corners.map(([u, v]) => [u * k, v * k]), x, y)) selectPuzzle(n);
    });
  });

  function inside(poly, x, y) {
    let hit = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i], [xj, yj] = poly[j];
      if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
    }
    return hit;
  }

  // ---------------------------------------------------------------- modes and inputs
  for (const b of document.querySelectorAll("#modes button")) {
    b.addEventListener("click", () => {
      state.mode = b.dataset.mode;
      for (const o of document.querySelectorAll("#modes button")) o.setAttribute("aria-pressed", o === b);
      if (state.file || state.sets.size) submit();
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
        b.textContent = `Example: ${ex.title}`;
        b.title = ex.credit;
        b.addEventListener("click", async () => {
          say("Loading the example…");
          const blob = await (await fetch(ex.url)).blob();
          await load(blob, `example-${ex.name}.jpg`, ex.credit);
        });
        $("examples").appendChild(b);
      }
    } catch (e) { /* no examples: the list stays empty */ }
  }

  async function load(blob, name, credit = "") {
    if (blob.size > MAX_UPLOAD) {
      say(`That photo is ${(blob.size / 1048576).toFixed(1)} MB; the limit is 20 MB.`, true);
      return;
    }
    state.file = blob; state.name = name; state.sets = new Map(); state.setsBy = new Map(); state.edit = 0;
    state.selected = null; state.reply = null; state.killer = null;
    state.base = null; state.scrolled = false; state.failed = false;
    $("credit").textContent = credit ? `Photo: ${credit}.` : "";
    try {
      state.bitmap = await createImageBitmap(blob, { imageOrientation: "from-image" });
    } catch (e) {
      state.bitmap = null; // the server says why it cannot be read
    }
    submit();
  }

  // ---------------------------------------------------------------- the request
  // The typed puzzle: every correction on an empty grid.
  function typedGivens() {
    const g = Array(81).fill(".");
    for (const [i, d] of state.sets) if (d) g[i] = String(d);
    return g.join("");
  }

  // A killer page whose cages were corrected: its givens (with the digits corrected) and cages, solved.
  function killerBody() {
    const base = nth(state.base), g = [...(base.givens || ".".repeat(81))];
    for (const [i, d] of state.sets) g[i] = d ? String(d) : ".";
    const { cages } = ARKiller.toCages(state.killer);
    return { givens: g.join(""), cages, show: state.mode };
  }

  async function request() {
    if (state.killer && state.killer.edited) {
      return fetch("/api/solve", { method: "POST", headers: { "Content-Type": "application/json" },
                                   body: JSON.stringify(killerBody()) });
    }
    if (!manual()) {
      const form = new FormData();
      form.append("photo", state.file, state.name);
      const every = new Map([...state.setsBy, [state.edit, state.sets]]); // each puzzle's own, by its index
      for (const [k, sets] of every) for (const [i, d] of sets) form.append("set", `${k}:${cellName(i)}=${d}`);
      form.append("show", state.mode);
      form.append("marks", "1");
      return fetch("/api/read", { method: "POST", body: form });
    }
    return fetch("/api/solve", { method: "POST", headers: { "Content-Type": "application/json" },
                                 body: JSON.stringify({ givens: typedGivens(), show: state.mode }) });
  }

  async function submit() {
    if (manual() && !state.sets.size) { state.reply = state.base; render(); return; }
    const missing = state.killer && state.killer.edited ? ARKiller.toCages(state.killer).missing : null;
    if (missing !== null) {
      render();  // the cages as edited, then why they are not solved (render says the last reading's status)
      say(`the cage at ${cellName(missing)} has no sum: select it and type its sum under the grid`, true);
      return;
    }
    if (state.busy) { state.again = true; return; }
    state.busy = true;
    say(manual() ? "Solving…" : `Reading ${state.name}…`);
    const t0 = performance.now();
    try {
      const res = await request();
      const obj = await res.json();
      if (!res.ok) {
        state.reply = null;
        // this photo cannot be read: what is typed now is the puzzle (a killer page's corrected cages that do not
        // hold together yet are the person's work in progress, not a photo that failed)
        if (!manual() && !(state.killer && state.killer.edited)) state.failed = true;
        say(obj.error || `the server answered ${res.status}`, true);
      } else {
        obj.round_trip_ms = performance.now() - t0;
        if (obj.cages && state.killer && state.killer.edited) {  // the corrected cages, drawn where the page is
          const base = nth(state.base);
          Object.assign(obj, { path: base.path, corners: base.corners, lattice: base.lattice, corrected: true });
        }
        if (!obj.path) { obj.typed = true; obj.path = state.name || "typed puzzle"; }
        if (!state.base && !obj.typed) {  // the photo as read, before any correction
          state.base = obj;
          const first = nth(obj);
          if (first && first.cages && !several()) state.killer = ARKiller.fromCages(first.cages);
        }
        state.reply = obj;
        window.lastRead = obj;
      }
    } catch (e) {
      say(`No answer from the server (${e.message}).`, true);
    }
    state.busy = false;
    render();
    if (state.reply && !state.scrolled && state.file) { state.scrolled = true; bringGridIntoView(); }
    if (state.again) { state.again = false; submit(); }
  }

  // After an upload on a small screen: what was read, the grid's first row and the pad in view (the
  // photo is just above: one swipe back).
  function bringGridIntoView() {
    const top = status.getBoundingClientRect().top, bottom = pad.getBoundingClientRect().bottom;
    if (top < 0 || bottom > window.innerHeight) status.scrollIntoView({ block: "start" });
  }

  // ---------------------------------------------------------------- drawing
  function drawPicture() {
    const ctx = pic.getContext("2d");
    const bm = state.bitmap;
    pic.hidden = !bm;
    window.photoDrawn = null;
    if (!bm) { ctx.clearRect(0, 0, pic.width, pic.height); return; }
    const dpr = window.devicePixelRatio || 1;
    const w = Math.min(bm.width, Math.round(pic.parentElement.clientWidth * dpr) || bm.width);
    const k = w / bm.width;
    pic.width = w; pic.height = Math.round(bm.height * k);
    ctx.drawImage(bm, 0, 0, pic.width, pic.height);
    const r = state.reply;
    // a page of several puzzles: each is drawn on the photo; the one the grid below edits is framed
    const all = puzzlesOf(r);
    window.photoDrawnAll = [];
    const scale = (pts) => pts.map(([x, y]) => [x * k, y * k]);
    const edited = several() && current();
    if (edited && edited.corners) {
      ctx.save();
      ctx.strokeStyle = ARGrid.COLORS.hint;
      ctx.lineWidth = 8;
      ctx.beginPath();
      scale(edited.corners).forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.stroke();
      ctx.restore();
    }
    for (const p of all) {
      if (!p.corners) continue;
      const outline = p.status === "solved" ? ARGrid.COLORS.outline.solved : ARGrid.COLORS.outline.other;
      if (p.size && p.size !== 9) {  // a 4x4, 6x6 or 16x16 grid: its answers in the page's own symbols
        const sized = ARGrid.drawSized(ctx, scale(p.corners), p, outline, state.mode === "answer");
        const placed = sized && { ...sized, scale: k };
        window.photoDrawnAll.push(placed);
        if (window.photoDrawn === null) window.photoDrawn = placed;
        continue;
      }
      const drawn = ARGrid.drawMarks(ctx, scale(p.corners), p.marks,
                                     { outline, lattice: p.lattice ? scale(p.lattice) : null });
      const placed = drawn && { ...drawn, scale: k }; // what went where, in canvas pixels (the tests read it)
      window.photoDrawnAll.push(placed);
      if (window.photoDrawn === null) window.photoDrawn = placed;
    }
  }

  // Cells that share a digit with another cell of their row, column or box.
  function clashes(digits) {
    const out = new Set();
    const units = [];
    for (let k = 0; k < 9; k++) {
      units.push([...Array(9).keys()].map((j) => k * 9 + j));
      units.push([...Array(9).keys()].map((j) => j * 9 + k));
      const r0 = Math.floor(k / 3) * 3, c0 = (k % 3) * 3;
      units.push([...Array(9).keys()].map((j) => (r0 + Math.floor(j / 3)) * 9 + c0 + (j % 3)));
    }
    for (const unit of units) {
      const seen = new Map();
      for (const i of unit) {
        const d = digits[i];
        if (!d) continue;
        if (seen.has(d)) { out.add(i); out.add(seen.get(d)); } else seen.set(d, i);
      }
    }
    return out;
  }

  const SAY = {
    solved: "solved",
    invalid: "two cells in a row, column or box hold the same digit (marked in red): tap one and fix it",
    typed_unsolvable: "these digits leave no solution: a cell was probably misread; tap it and fix it",
    unsolvable: "the digits as read cannot be settled: tap a misread cell and fix it",
    timeout: "no solution found in time: check the digits as read",
    no_grid: "no Sudoku grid found in this photo: type the puzzle into the empty grid below (tap a cell, " +
             "then a digit) and it is solved as you go, or try a sharper, closer photo",
  };

  function render() {
    drawPicture();
    drawChoices();
    const r = current();
    const blank = typing();
    // the grid below edits a 9x9 reading; another size is drawn on the photo only
    const nine = !r || !r.size || r.size === 9;
    const givens = nine && r && r.givens, sol = nine && r && r.solution, conf = nine && !blank && r && r.confidence;
    const entries = nine && !blank && r && r.entries; // handwritten entries, where the reading tells them apart
    const marks = (r && r.marks) || {};
    const wrong = new Set(marks.mistakes || []);
    const hint = new Map((marks.small || []).filter(([, t]) => /^\d$/.test(t)));
    const shown = [];
    for (let i = 0; i < 81; i++) {
      const c = cells[i];
      let text = "", cls = "cell";
      const fixed = state.sets.has(i), own = fixed ? state.sets.get(i) : null;
      if (fixed && own) { text = String(own); cls += " given"; }
      else if (!fixed && givens && givens[i] !== ".") { text = givens[i]; cls += " given"; }
      else if (!fixed && entries && entries[i] !== "." && entries[i] !== "0") { text = entries[i]; cls += " entry"; }
      if (text) shown[i] = text;
      else if (sol && state.mode === "answer") { text = sol[i]; cls += " answer"; }
      else if (hint.has(i)) { text = hint.get(i); cls += " hint"; }
      if (conf && conf[i] < LOW && !fixed) cls += " low";
      if (fixed) cls += " fixed";
      if (wrong.has(i)) cls += " mistake";
      if (state.selected === i) cls += " selected";
      c.className = cls;
      c.textContent = text;
      c.title = cellName(i) + (conf ? ` · read with ${(conf[i] * 100).toFixed(0)}% confidence` : "");
    }
    for (const i of clashes(shown)) cells[i].classList.add("clash");
    cageSum.hidden = !state.killer;
    if (state.killer) {
      ARKiller.decorate(cells, state.killer);
      const i = state.selected;
      sumInput.disabled = i === null;
      sumInput.value = i !== null && state.killer.sums.has(i) ? state.killer.sums.get(i) : "";
    }
    fixes.replaceChildren(...[...state.sets].map(([i, d]) => {
      const b = document.createElement("button");
      b.textContent = d ? `${cellName(i)} = ${d} ✕` : `${cellName(i)} cleared ✕`;
      b.title = blank ? "remove this digit" : "undo this correction";
      b.addEventListener("click", () => { state.sets.delete(i); state.selected = null; submit(); });
      return b;
    }));
    for (const b of pad.children) b.disabled = state.selected === null || (!r && !blank);
    if (state.busy) return;
    if (!r) {
      if (!state.file) say("Take or choose a photo of a Sudoku, or try an example; or type a puzzle into the grid.");
      return;
    }
    const parts = [];
    const status = blank && state.sets.size && r.typed ? r.status : (state.base && state.base.status === "no_grid"
      ? "no_grid" : r.status);
    const said = r.typed && status === "unsolvable" ? SAY.typed_unsolvable : SAY[status];  // typed: nothing was read
    const which = several() ? ` (puzzle ${state.edit + 1} of ${puzzlesOf(state.reply).length})` : "";
    parts.push(`${r.typed && !state.file ? "your puzzle" : r.path}${which}: ${said || status.replace("_", " ")}`);
    if (!nine) parts.push(`a ${r.size}x${r.size} puzzle (${r.box} boxes, printed ${r.symbols}): ` +
                          "its answers are drawn on the photo");
    if (r.message && status !== "invalid") parts.push(r.message);
    if (marks.text) parts.push(marks.text);
    if (r.ms !== undefined) parts.push(`${r.ms.toFixed(0)} ms on the server`);
    const low = conf ? conf.filter((c) => c < LOW).length : 0;
    if (status === "solved" && low) parts.push(`${low} cell${low > 1 ? "s" : ""} read with low confidence (yellow)`);
    say(parts.join(" · "), status !== "solved");
  }

  // One button a puzzle, when the photo holds several: which one the grid edits.
  function drawChoices() {
    const box = $("puzzles");
    const all = several() ? puzzlesOf(state.reply) : [];
    box.hidden = !all.length;
    box.replaceChildren(...all.map((p, n) => {
      const b = document.createElement("button");
      b.textContent = `Puzzle ${n + 1}` + (p.status === "solved" ? " ✓" : "");
      b.title = `edit puzzle ${n + 1} of the page (or tap it on the photo)`;
      b.setAttribute("aria-pressed", n === state.edit);
      b.addEventListener("click", () => selectPuzzle(n));
      return b;
    }));
  }

  window.addEventListener("resize", () => state.bitmap && drawPicture());
  window.photoRender = render;
  loadExamples();
  render();
})();
