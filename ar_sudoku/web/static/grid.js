// The grid's plane on a canvas: a homography from the unit square to the four corners, and the
// marks (answers, mistakes, hint ring/shade/small digits) drawn in perspective, as the desktop
// overlay draws them. Shared by the photo page and the live page.
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

  // The affine map that best matches H around a cell's centre: cell-local units (-0.5..0.5) to pixels.
  function cellAffine(H, cell) {
    const r = Math.floor(cell / 9), c = cell % 9, u = (c + 0.5) / 9, v = (r + 0.5) / 9, e = 1e-3;
    const p = apply(H, u, v), pu = apply(H, u + e, v), pv = apply(H, u, v + e);
    const k = 1 / 9 / e;
    return [(pu[0] - p[0]) * k, (pu[1] - p[1]) * k, (pv[0] - p[0]) * k, (pv[1] - p[1]) * k, p[0], p[1]];
  }

  function cellQuad(H, cell) {
    const r = Math.floor(cell / 9), c = cell % 9;
    return [[c, r], [c + 1, r], [c + 1, r + 1], [c, r + 1]].map(([x, y]) => apply(H, x / 9, y / 9));
  }

  function path(ctx, pts) {
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
  }

  // Run draw(ctx) with cell-local units (1 = one cell) mapped into the cell's perspective.
  function inCell(ctx, H, cell, draw) {
    const [a, b, c, d, e, f] = cellAffine(H, cell);
    ctx.save();
    ctx.transform(a / 100, b / 100, c / 100, d / 100, e, f); // 100 units a cell: fonts render crisply
    draw();
    ctx.restore();
  }

  function text(ctx, H, cell, t, color, size, dx = 0, dy = 0) {
    inCell(ctx, H, cell, () => {
      ctx.fillStyle = color;
      ctx.font = `bold ${size}px system-ui, sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(t, dx, dy + size * 0.05);
    });
  }

  function ring(ctx, H, cell, color) {
    inCell(ctx, H, cell, () => {
      ctx.strokeStyle = color;
      ctx.lineWidth = 7;
      ctx.beginPath();
      ctx.arc(0, 0, 40, 0, 2 * Math.PI);
      ctx.stroke();
    });
  }

  // Draw ``marks`` (the server's Marks as JSON) for a grid at ``corners`` (already in canvas pixels).
  function drawMarks(ctx, corners, marks, opts = {}) {
    const H = homography(corners);
    if (!H) return;
    if (opts.outline) {
      ctx.save();
      ctx.strokeStyle = opts.outline;
      ctx.lineWidth = 3;
      path(ctx, corners);
      ctx.stroke();
      ctx.restore();
    }
    if (!marks) return;
    ctx.fillStyle = COLORS.shade;
    for (const cell of marks.shade || []) { path(ctx, cellQuad(H, cell)); ctx.fill(); }
    for (const [cell, d] of marks.answers || []) text(ctx, H, cell, d, COLORS.answer, 68);
    for (const cell of marks.ring || []) ring(ctx, H, cell, COLORS.hint);
    for (const cell of marks.mistakes || []) ring(ctx, H, cell, COLORS.mistake);
    for (const [cell, t] of marks.small || []) {
      if (/^\d$/.test(t)) text(ctx, H, cell, t, COLORS.hint, 60);
      else text(ctx, H, cell, t, COLORS.hint, 34, 22, -26);
    }
  }

  return { homography, apply, drawMarks, solveLinear, COLORS };
})();
