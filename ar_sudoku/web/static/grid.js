// The grid's plane on a canvas: the marks (answers, mistakes, hint ring/shade/small digits) drawn in
// perspective, as the desktop overlay draws them. A curled page is drawn through its lattice, cell by
// cell: each cell has its own homography from its four crossings, so a digit sits where the paper's
// cell is, not where one homography of the four outer corners would put it. A flat page is the case
// where the lattice is made from the corners. Shared by the photo page and the live page.
"use strict";

const ARGrid = (() => {
  const COLORS = {
    answer: "rgb(0,170,40)", mistake: "rgb(230,30,30)", hint: "rgb(0,90,200)",
    shade: "rgba(255,200,0,0.30)", outline: { solved: "rgba(0,170,40,0.9)", other: "rgba(255,190,0,0.9)" },
  };

  // Solve A x = b (n x n) by Gaussian elimination with partial pivoting; null when singular.
  function solveLinear(A, b) {
    const n = b.length;
    const M = A.map((row, i) => [...row, b[i]]);
    for (let c = 0; c < n; c++) {
      let p = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r;
      if (Math.abs(M[p][c]) < 1e-12) return null;
      [M[c], M[p]] = [M[p], M[c]];
      for (let r = c + 1; r < n; r++) {
        const f = M[r][c] / M[c][c];
        for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
      }
    }
    const x = new Array(n).fill(0);
    for (let r = n - 1; r >= 0; r--) {
      let s = M[r][n];
      for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
      x[r] = s / M[r][r];
    }
    return x;
  }

  // The 3x3 homography (row-major, h22 = 1) taking (0,0),(1,0),(1,1),(0,1) to the corners TL,TR,BR,BL.
  function homography(corners) {
    const src = [[0, 0], [1, 0], [1, 1], [0, 1]];
    const A = [], b = [];
    for (let i = 0; i < 4; i++) {
      const [u, v] = src[i], [x, y] = corners[i];
      A.push([u, v, 1, 0, 0, 0, -u * x, -v * x]); b.push(x);
      A.push([0, 0, 0, u, v, 1, -u * y, -v * y]); b.push(y);
    }
    const h = solveLinear(A, b);
    return h ? [...h, 1] : null;
  }

  function apply(H, u, v) {
    const w = H[6] * u + H[7] * v + H[8];
    return [(H[0] * u + H[1] * v + H[2]) / w, (H[3] * u + H[4] * v + H[5]) / w];
  }

  // The 10x10 crossings (row by row) of a flat grid with these corners.
  function latticeOf(corners) {
    const H = homography(corners);
    if (!H) return null;
    const out = [];
    for (let r = 0; r <= 9; r++) for (let c = 0; c <= 9; c++) out.push(apply(H, c / 9, r / 9));
    return out;
  }

  // A grid's geometry on the canvas: per cell, the homography from the unit square to its 4 crossings.
  function geometry(corners, lattice) {
    const pts = lattice && lattice.length === 100 ? lattice : latticeOf(corners);
    if (!pts || !pts.every(([x, y]) => Number.isFinite(x) && Number.isFinite(y))) return null;
    const at = (r, c) => pts[r * 10 + c];
    const cells = [];
    for (let r = 0; r < 9; r++) {
      for (let c = 0; c < 9; c++) {
        const quad = [at(r, c), at(r, c + 1), at(r + 1, c + 1), at(r + 1, c)];
        cells.push({ quad, H: homography(quad) });
      }
    }
    const border = [];
    for (let c = 0; c < 9; c++) border.push(at(0, c));
    for (let r = 0; r < 9; r++) border.push(at(r, 9));
    for (let c = 9; c > 0; c--) border.push(at(9, c));
    for (let r = 9; r > 0; r--) border.push(at(r, 0));
    return { cells, border, corners: [at(0, 0), at(0, 9), at(9, 9), at(9, 0)] };
  }

  // The affine map that best matches a cell's homography at its centre: cell-local units (-0.5..0.5) to pixels.
  function cellAffine(H) {
    const e = 1e-3, p = apply(H, 0.5, 0.5), pu = apply(H, 0.5 + e, 0.5), pv = apply(H, 0.5, 0.5 + e);
    return [(pu[0] - p[0]) / e, (pu[1] - p[1]) / e, (pv[0] - p[0]) / e, (pv[1] - p[1]) / e, p[0], p[1]];
  }

  function path(ctx, pts) {
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
  }

  // Run draw(ctx) with cell-local units (100 = one cell) mapped into the cell's perspective.
  function inCell(ctx, geo, cell, draw) {
    const H = geo.cells[cell].H;
    if (!H) return null;
    const [a, b, c, d, e, f] = cellAffine(H);
    ctx.save();
    ctx.transform(a / 100, b / 100, c / 100, d / 100, e, f); // 100 units a cell: fonts render crisply
    draw();
    ctx.restore();
    return [e, f];
  }

  function text(ctx, geo, cell, t, color, size, placed, dx = 0, dy = 0) {
    const at = inCell(ctx, geo, cell, () => {
      ctx.fillStyle = color;
      ctx.font = `bold ${size}px system-ui, sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(t, dx, dy + size * 0.05);
    });
    if (at && !dx && !dy) placed.push([cell, t, at[0], at[1]]);
  }

  function ring(ctx, geo, cell, color) {
    inCell(ctx, geo, cell, () => {
      ctx.strokeStyle = color;
      ctx.lineWidth = 7;
      ctx.beginPath();
      ctx.arc(0, 0, 40, 0, 2 * Math.PI);
      ctx.stroke();
    });
  }

  // Draw ``marks`` (the server's Marks as JSON) for a grid at ``corners``, through ``lattice`` (the 100
  // crossings) when given; both already in canvas pixels. Returns what was drawn where (the outline's
  // corners and each digit's centre, [cell, digit, x, y]), or null when the geometry is degenerate.
  function drawMarks(ctx, corners, marks, opts = {}) {
    const geo = geometry(corners, opts.lattice);
    if (!geo) return null;
    const placed = [];
    if (opts.outline) {
      ctx.save();
      ctx.strokeStyle = opts.outline;
      ctx.lineWidth = 3;
      path(ctx, geo.border);
      ctx.stroke();
      ctx.restore();
    }
    if (marks) {
      ctx.fillStyle = COLORS.shade;
      for (const cell of marks.shade || []) { path(ctx, geo.cells[cell].quad); ctx.fill(); }
      for (const [cell, d] of marks.answers || []) {  // a killer page's answers leave its sums clear
        if (marks.corner_clear) text(ctx, geo, cell, d, COLORS.answer, 52, placed, 10, 12);
        else text(ctx, geo, cell, d, COLORS.answer, 68, placed);
      }
      for (const cell of marks.ring || []) ring(ctx, geo, cell, COLORS.hint);
      for (const cell of marks.mistakes || []) ring(ctx, geo, cell, COLORS.mistake);
      for (const [cell, t] of marks.small || []) {
        if (/^\d$/.test(t)) text(ctx, geo, cell, t, COLORS.hint, 60, placed);
        else text(ctx, geo, cell, t, COLORS.hint, 34, placed, 22, -26);
      }
    }
    return { corners: geo.corners, placed };
  }

  // The solver's symbol (1-9 then A-G) as the page prints it: "0-F" counts from 0, "1-16" in numbers.
  function styledSymbol(ch, symbols) {
    const v = "123456789ABCDEFG".indexOf(ch) + 1;
    if (symbols === "0-F") return "0123456789ABCDEF"[v - 1];
    if (symbols === "1-16") return String(v);
    return ch;
  }

  // A grid of another size than 9x9 (a puzzle of the photo or live JSON: size, givens, solution, symbols):
  // its outline, and each missing value in its cell's middle through the corners' homography, in the page's
  // own symbols (answers only when ``answers``). Returns what went where, as drawMarks.
  function drawSized(ctx, corners, p, outline, answers = true) {
    const H = homography(corners);
    if (!H) return null;
    const n = p.size;
    ctx.save();
    ctx.strokeStyle = outline;
    ctx.lineWidth = 3;
    ctx.beginPath();
    corners.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.stroke();
    const placed = [];
    if (p.solution && answers) {
      const [ax, ay] = apply(H, 0, 0), [bx, by] = apply(H, 1, 1);
      const cellPx = Math.hypot(bx - ax, by - ay) / (n * Math.SQRT2);
      ctx.fillStyle = COLORS.answer;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      for (let i = 0; i < n * n; i++) {
        if (p.givens[i] !== ".") continue;
        const t = styledSymbol(p.solution[i], p.symbols);
        ctx.font = `bold ${Math.round(cellPx * (t.length > 1 ? 0.45 : 0.6))}px sans-serif`;
        const [x, y] = apply(H, (i % n + 0.5) / n, (Math.floor(i / n) + 0.5) / n);
        ctx.fillText(t, x, y);
        placed.push([i, t, x, y]);
      }
    }
    ctx.restore();
    return { corners, placed };
  }

  return { homography, apply, latticeOf, drawMarks, drawSized, solveLinear, COLORS };
})();
