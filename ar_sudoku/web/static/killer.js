// A killer page on the photo page: the cages as read drawn in the grid below (a dashed line where two cells
// lie in different cages, each sum in its cage's first cell), and the person's corrections: a tap near a
// cell's edge parts or joins the two cells there, and a sum is typed into the box under the grid for the
// selected cell. The corrected cages are sent to POST /api/solve and solved there (the server keeps nothing).
"use strict";

window.ARKiller = (() => {
  const key = (a, b) => (a < b ? `${a}-${b}` : `${b}-${a}`);
  const near = (i) => {
    const r = Math.floor(i / 9), c = i % 9, out = [];
    if (r > 0) out.push(i - 9);
    if (c < 8) out.push(i + 1);
    if (r < 8) out.push(i + 9);
    if (c > 0) out.push(i - 1);
    return out;
  };

  // The cages as read: each cage's sum by its first cell, and the borders between cells of different cages.
  function fromCages(cages) {
    const owner = Array(81).fill(-1), sums = new Map(), parted = new Set();
    cages.forEach((cage, k) => { for (const c of cage.cells) owner[c] = k; sums.set(Math.min(...cage.cells), cage.sum); });
    for (let i = 0; i < 81; i++) for (const j of near(i)) if (owner[i] !== owner[j]) parted.add(key(i, j));
    return { sums, parted, edited: false };
  }

  // The regions the borders cut the grid into, each a sorted list of cells.
  function regions(k) {
    const parent = [...Array(81).keys()];
    const find = (a) => { while (parent[a] !== a) a = parent[a] = parent[parent[a]]; return a; };
    for (let i = 0; i < 81; i++) for (const j of near(i)) if (!k.parted.has(key(i, j))) parent[find(i)] = find(j);
    const groups = new Map();
    for (let i = 0; i < 81; i++) { const r = find(i); if (!groups.has(r)) groups.set(r, []); groups.get(r).push(i); }
    return [...groups.values()];
  }

  // The cages to solve, or why there are none yet (a region with no sum typed for its first cell).
  function toCages(k) {
    const cages = [];
    for (const cells of regions(k)) {
      const first = cells[0];
      if (!k.sums.has(first)) return { cages: null, missing: first };
      cages.push({ sum: k.sums.get(first), cells });
    }
    return { cages, missing: null };
  }

  // The neighbour across the edge a tap landed near (within a fifth of the cell), or null (the middle).
  function edgeAt(ev, el, i) {
    const box = el.getBoundingClientRect();
    const x = (ev.clientX - box.left) / box.width, y = (ev.clientY - box.top) / box.height;
    const r = Math.floor(i / 9), c = i % 9, m = 0.2;
    if (y < m && r > 0) return i - 9;
    if (y > 1 - m && r < 8) return i + 9;
    if (x < m && c > 0) return i - 1;
    if (x > 1 - m && c < 8) return i + 1;
    return null;
  }

  function toggle(k, a, b) {
    const kk = key(a, b);
    if (k.parted.has(kk)) k.parted.delete(kk); else k.parted.add(kk);
    k.edited = true;
  }

  // Each cell's cage lines and sum, drawn over what render() wrote in it.
  function decorate(cells, k) {
    const starts = new Set(regions(k).map((g) => g[0]));
    cells.forEach((el, i) => {
      const box = document.createElement("span");
      box.className = "cage";
      const [up, right, down, left] = [i - 9, i + 1, i + 9, i - 1];
      const r = Math.floor(i / 9), c = i % 9;
      const edge = (j, ok) => ok && !k.parted.has(key(i, j)) ? "transparent" : "currentColor";
      box.style.borderColor = [edge(up, r > 0), edge(right, c < 8), edge(down, r < 8), edge(left, c > 0)].join(" ");
      el.appendChild(box);
      if (starts.has(i)) {
        const s = document.createElement("span");
        s.className = "sum";
        s.textContent = k.sums.has(i) ? String(k.sums.get(i)) : "?";
        el.appendChild(s);
      }
    });
  }

  return { fromCages, toCages, edgeAt, toggle, decorate, regions };
})();
