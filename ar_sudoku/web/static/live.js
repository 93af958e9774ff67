// The live page: the camera's frames go to the server over a WebSocket, downscaled to 640 px and
// JPEG-encoded, one at a time: the next frame is captured only after the reply to the last one, so
// no backlog can build up. The server's session (the desktop loop's state machine) answers with the
// grid's crossings and the marks.
//
// What is shown is the frame the reply belongs to, drawn on the canvas with its overlay: picture and
// overlay come from the same instant, so the digits stay on the paper however fast it moves, at the
// cost of showing the picture one round trip late (the latency readout) and at the reply rate. Until
// the first reply, and whenever the connection is down, the camera's own video shows, with no overlay.
"use strict";

(() => {
  const WIDTH = 640, QUALITY = 0.8, RETRY_MS = [300, 600, 1000, 2000];
  const $ = (id) => document.getElementById(id);
  const video = $("video"), view = $("view"), stage = $("stage"), readout = $("readout"), sayEl = $("say");
  const startBtn = $("start"), hintBtn = $("nexthint");
  const shot = document.createElement("canvas"); // the frame as captured, kept to be shown with its reply
  const cap = document.createElement("canvas"); // the frame as sent (640 px)
  let ws = null, stream = null, running = false, inFlight = false, sentAt = 0, mode = "answer";
  let retry = 0, retryTimer = null, watchdog = null;
  const replyTimes = [], latencies = [], intervals = [];
  // what the page measured; the browser tests read it
  const stats = { fps: 0, latency_ms: 0, frames: 0, started: 0, first_corners_ms: null, first_solution_ms: null,
                  motion_px: null, // how far the corners moved since the previous reply (frame pixels)
                  interval_ms: 0, last_reply_wall: null, dropped_wall: null, drops: 0, connects: 0 };
  window.liveStats = stats;
  window.lastReply = null;
  window.liveDrawn = null; // the outline's corners and each digit's centre as drawn, in CSS pixels of the picture

  function show(text, isError = false) {
    readout.textContent = text;
    readout.classList.toggle("error", isError);
  }

  const median = (xs) => {
    if (!xs.length) return 0;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  };

  // The picture as large as fits: the stage's width, and the height left above the controls (beside
  // them on a low landscape screen, where the stylesheet puts the controls on the right).
  const sideBySide = window.matchMedia("(orientation: landscape) and (max-height: 600px)");
  function fit() {
    const fw = video.videoWidth || 16, fh = video.videoHeight || 9;
    const below = sideBySide.matches ? 0 : $("below").offsetHeight;
    const availH = Math.max(120, window.innerHeight - stage.getBoundingClientRect().top - window.scrollY - below - 4);
    const k = Math.min(stage.clientWidth / fw, availH / fh);
    const w = Math.round(fw * k), h = Math.round(fh * k);
    for (const el of [video, view]) { el.style.width = `${w}px`; el.style.height = `${h}px`; }
    const dpr = window.devicePixelRatio || 1;
    if (view.width !== Math.round(w * dpr) || view.height !== Math.round(h * dpr)) {
      view.width = Math.round(w * dpr); view.height = Math.round(h * dpr);
    }
  }

  function blank() {
    view.getContext("2d").clearRect(0, 0, view.width, view.height);
    view.hidden = true; // the live video underneath shows, with nothing drawn on it
    window.liveDrawn = null;
  }

  async function start() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      show(window.isSecureContext ? "This browser has no camera API."
        : "The camera needs a secure page: open it as https (ar-sudoku serve --https) or on localhost.", true);
      return;
    }
    startBtn.disabled = true;
    show("Asking for the camera…");
    const portrait = window.innerHeight > window.innerWidth;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: "environment" }, width: { ideal: portrait ? 720 : 1280 },
                 height: { ideal: portrait ? 1280 : 720 } },
        audio: false,
      });
    } catch (e) {
      startBtn.disabled = false;
      show(`No camera: ${e.name === "NotAllowedError" ? "permission was refused" : e.message}.`, true);
      return;
    }
    startBtn.disabled = false;
    video.srcObject = stream;
    await video.play().catch(() => {});
    fit();
    startBtn.textContent = "Stop camera";
    startBtn.classList.remove("primary");
    connect();
  }

  function stop() {
    running = false;
    clearTimeout(retryTimer); clearTimeout(watchdog);
    if (ws) { ws.onclose = null; ws.close(); }
    ws = null;
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    video.srcObject = null;
    blank();
    startBtn.textContent = "Start camera";
    startBtn.classList.add("primary");
    hintBtn.disabled = true;
    sayEl.textContent = "";
    show("Stopped. Start the camera to go on.");
  }

  // The connection is gone (closed, refused or silent): nothing stale stays on the picture; try again soon.
  function dropped(why) {
    running = false;
    clearTimeout(watchdog);
    if (ws) { ws.onclose = null; ws.onmessage = null; ws.close(); }
    ws = null;
    blank();
    hintBtn.disabled = true;
    sayEl.textContent = "";
    stats.dropped_wall = Date.now(); stats.drops += 1;
    if (!stream) return;
    const wait = RETRY_MS[Math.min(retry, RETRY_MS.length - 1)];
    retry += 1;
    show(`${why} Reconnecting…`, true);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, wait);
  }

  function connect() {
    if (!stream) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/live?mode=${mode}`;
    const sock = new WebSocket(url);
    ws = sock;
    inFlight = false;
    if (!stats.drops) show("Connecting…");
    sock.onmessage = (ev) => ws === sock && onReply(JSON.parse(ev.data));
    // a server that accepts but never greets (a half-dead network) is tried again, not waited on forever
    clearTimeout(watchdog);
    watchdog = setTimeout(() => ws === sock && !running && dropped("No answer from the server."), 5000);
    sock.onclose = (ev) => {
      if (ws !== sock) return;
      if (ev.code === 1013) dropped("The server is busy (all its live places are taken): waiting for one to free up.");
      else if (stats.connects && !running) dropped("No answer from the server.");
      else dropped(ev.reason ? `The server closed the connection: ${ev.reason}.` : "The connection to the server was lost.");
    };
  }

  // A reply that does not come (a network that went silent without closing) counts as a drop. Lenient:
  // a false drop costs the server's session (its votes and solution), so only a long silence counts.
  function arm() {
    clearTimeout(watchdog);
    const limit = Math.max(4000, 10 * (stats.interval_ms || 100));
    watchdog = setTimeout(() => running && dropped("The server stopped answering."), limit);
  }

  function onReply(obj) {
    if (obj.type === "ready") {
      running = true;
      retry = 0;
      stats.connects += 1;
      if (!stats.started) stats.started = performance.now();
      show("Point the camera at a Sudoku.");
      next();
      return;
    }
    if (obj.type === "error") { show(obj.error, true); return; }
    if (obj.type !== "frame") return;
    const now = performance.now();
    latencies.push(now - sentAt);
    if (latencies.length > 60) latencies.shift();
    if (replyTimes.length) intervals.push(now - replyTimes[replyTimes.length - 1]);
    if (intervals.length > 60) intervals.shift();
    replyTimes.push(now);
    while (replyTimes.length && now - replyTimes[0] > 2000) replyTimes.shift();
    stats.frames += 1;
    if (replyTimes.length > 1) stats.fps = (replyTimes.length - 1) / ((now - replyTimes[0]) / 1000);
    stats.latency_ms = median(latencies);
    stats.interval_ms = median(intervals);
    stats.last_reply_wall = Date.now();
    const prev = window.lastReply && window.lastReply.corners;
    stats.motion_px = prev && obj.corners
      ? Math.max(...obj.corners.flatMap(([x, y], i) => [Math.abs(x - prev[i][0]), Math.abs(y - prev[i][1])])) : null;
    if (obj.corners && stats.first_corners_ms === null) stats.first_corners_ms = now - stats.started;
    if (obj.solution && stats.first_solution_ms === null) stats.first_solution_ms = now - stats.started;
    window.lastReply = obj;
    clearTimeout(watchdog);
    draw(obj);
    inFlight = false;
    next();
  }

  // The frame this reply belongs to, and its overlay on top: the two always match.
  function draw(obj) {
    fit();
    const w = view.width, h = view.height;
    const ctx = view.getContext("2d");
    view.hidden = false;
    ctx.drawImage(shot, 0, 0, w, h);
    window.liveDrawn = null;
    if (obj.error) { show(obj.error, true); return; }
    if (obj.corners && obj.frame_size) {
      const k = w / obj.frame_size[0];
      const scale = (pts) => pts.map(([x, y]) => [x * k, y * k]);
      // every puzzle in view (the first is the top-level one); a 4x4, 6x6 or 16x16 grid in its own symbols
      const drawOne = (p) => {
        const outline = p.solution ? ARGrid.COLORS.outline.solved : ARGrid.COLORS.outline.other;
        if (p.size && p.size !== 9) return ARGrid.drawSized(ctx, scale(p.corners), p, outline);
        return ARGrid.drawMarks(ctx, scale(p.corners), p.marks,
                                { outline, lattice: p.lattice ? scale(p.lattice) : null });
      };
      const all = obj.puzzles && obj.puzzles.length ? obj.puzzles : [obj];
      let drawn = null;
      for (const p of all) {
        if (!p.corners) continue;
        const one = drawOne(p);
        if (drawn === null) drawn = one;
      }
      const css = (window.devicePixelRatio || 1);
      if (drawn) {
        window.liveDrawn = { frame: obj.frame, corners: drawn.corners.map(([x, y]) => [x / css, y / css]),
                             placed: drawn.placed.map(([c, d, x, y]) => [c, d, x / css, y / css]) };
      }
    }
    hintBtn.disabled = !(obj.mode === "hint" && obj.marks);
    sayEl.textContent = (obj.marks && obj.marks.text) || obj.say || "";
    show(`${stats.fps.toFixed(1)} fps · latency ${stats.latency_ms.toFixed(0)} ms (median; server ${obj.server_ms.toFixed(0)} ms)`
      + ` · ${obj.status.replace("_", " ")}${obj.solution ? " ✓" : ""}`);
    // the reply is shown whole (picture, overlay and status line) when this fires
    view.dispatchEvent(new CustomEvent("drawn"));
  }

  // The next frame: when the video has a new one (or soon, where the browser cannot say).
  let generation = 0; // a reply starts a new wait; callbacks of an older wait do nothing
  function next() {
    if (!running) return;
    const g = ++generation;
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(() => g === generation && send());
    setTimeout(() => g === generation && send(), 100);
  }

  async function send() {
    if (!running || inFlight || !ws || ws.readyState !== WebSocket.OPEN || video.readyState < 2) {
      if (running && !inFlight && video.readyState < 2) setTimeout(send, 50);
      return;
    }
    inFlight = true;
    const vw = video.videoWidth, vh = video.videoHeight;
    // kept at the size it is shown (at least the size sent), so the picture stays sharp on a phone
    const sw = Math.min(vw, Math.max(WIDTH, view.width || WIDTH)), sh = Math.round((vh * sw) / vw);
    const w = Math.min(WIDTH, vw), h = Math.round((vh * w) / vw);
    if (shot.width !== sw || shot.height !== sh) { shot.width = sw; shot.height = sh; }
    if (cap.width !== w || cap.height !== h) { cap.width = w; cap.height = h; }
    const t = performance.now(); // capture time: the latency counts from here to the reply
    shot.getContext("2d").drawImage(video, 0, 0, sw, sh);
    cap.getContext("2d").drawImage(shot, 0, 0, w, h);
    const blob = await new Promise((resolve) => cap.toBlob(resolve, "image/jpeg", QUALITY));
    if (!blob || !ws || ws.readyState !== WebSocket.OPEN) { inFlight = false; return; }
    sentAt = t;
    ws.send(blob);
    arm();
  }

  function command(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
  }

  for (const b of document.querySelectorAll("#modes button")) {
    b.addEventListener("click", () => {
      mode = b.dataset.mode;
      for (const o of document.querySelectorAll("#modes button")) o.setAttribute("aria-pressed", o === b);
      command({ mode });
    });
  }
  hintBtn.addEventListener("click", () => command({ next_hint: true }));
  startBtn.addEventListener("click", () => (stream ? stop() : start()));
  video.addEventListener("loadedmetadata", fit);
  window.addEventListener("resize", fit);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) next(); });
  fit();
})();
