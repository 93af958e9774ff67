// The live page: the camera's frames go to the server over a WebSocket, downscaled to 640 px and
// JPEG-encoded, one at a time: the next frame is captured only after the reply to the last one, so
// no backlog can build up and the overlay is never older than one round trip. The server's session
// (the desktop loop's state machine) answers with the corners and the marks; they are drawn here, in
// the grid's perspective, on a canvas over the video.
"use strict";

(() => {
  const WIDTH = 640, QUALITY = 0.8;
  const $ = (id) => document.getElementById(id);
  const video = $("video"), overlay = $("overlay"), readout = $("readout"), sayEl = $("say");
  const startBtn = $("start"), hintBtn = $("nexthint");
  const cap = document.createElement("canvas");
  const capCtx = cap.getContext("2d", { willReadFrequently: false });
  let ws = null, stream = null, running = false, inFlight = false, sentAt = 0, mode = "answer";
  const replyTimes = [], latencies = [];
  // what the page measured; the browser test reads it
  const stats = { fps: 0, latency_ms: 0, frames: 0, started: 0, first_corners_ms: null, first_solution_ms: null,
                  motion_px: null }; // motion: how far the corners moved since the previous reply (frame pixels)
  window.liveStats = stats;
  window.lastReply = null;

  function show(text, isError = false) {
    readout.textContent = text;
    readout.classList.toggle("error", isError);
  }

  const median = (xs) => {
    if (!xs.length) return 0;
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  };

  async function start() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      show(window.isSecureContext ? "This browser has no camera API."
        : "The camera needs a secure page: open it as https (ar-sudoku serve --https) or on localhost.", true);
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: { ideal: "environment" }, width: { ideal: 1280 }, height: { ideal: 720 } },
        audio: false,
      });
    } catch (e) {
      show(`No camera: ${e.name === "NotAllowedError" ? "permission was refused" : e.message}.`, true);
      return;
    }
    video.srcObject = stream;
    await video.play().catch(() => {});
    startBtn.textContent = "Stop camera";
    startBtn.classList.remove("primary");
    connect();
  }

  function stop() {
    running = false;
    if (ws) ws.close();
    ws = null;
    if (stream) stream.getTracks().forEach((t) => t.stop());
    stream = null;
    video.srcObject = null;
    overlay.getContext("2d").clearRect(0, 0, overlay.width, overlay.height);
    startBtn.textContent = "Start camera";
    startBtn.classList.add("primary");
    show("Stopped.");
  }

  function connect() {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/live?mode=${mode}`;
    ws = new WebSocket(url);
    inFlight = false;
    show("Connecting…");
    ws.onmessage = (ev) => onReply(JSON.parse(ev.data));
    ws.onclose = (ev) => {
      running = false;
      if (stream) show(ev.reason ? `The server closed the connection: ${ev.reason}` : "The connection closed.", true);
    };
  }

  function onReply(obj) {
    if (obj.type === "ready") {
      running = true;
      stats.started = performance.now();
      show("Point the camera at a Sudoku.");
      next();
      return;
    }
    if (obj.type === "error") { show(obj.error, true); return; }
    if (obj.type !== "frame") return;
    const now = performance.now();
    latencies.push(now - sentAt);
    if (latencies.length > 60) latencies.shift();
    replyTimes.push(now);
    while (replyTimes.length && now - replyTimes[0] > 2000) replyTimes.shift();
    stats.frames += 1;
    if (replyTimes.length > 1) stats.fps = (replyTimes.length - 1) / ((now - replyTimes[0]) / 1000);
    stats.latency_ms = median(latencies);
    const prev = window.lastReply && window.lastReply.corners;
    stats.motion_px = prev && obj.corners
      ? Math.max(...obj.corners.flatMap(([x, y], i) => [Math.abs(x - prev[i][0]), Math.abs(y - prev[i][1])])) : null;
    if (obj.corners && stats.first_corners_ms === null) stats.first_corners_ms = now - stats.started;
    if (obj.solution && stats.first_solution_ms === null) stats.first_solution_ms = now - stats.started;
    window.lastReply = obj;
    draw(obj);
    inFlight = false;
    next();
  }

  function draw(obj) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.round(video.clientWidth * dpr), h = Math.round(video.clientHeight * dpr);
    if (overlay.width !== w || overlay.height !== h) { overlay.width = w; overlay.height = h; }
    const ctx = overlay.getContext("2d");
    ctx.clearRect(0, 0, w, h);
    if (obj.error) { show(obj.error, true); return; }
    if (obj.corners && obj.size) {
      const k = w / obj.size[0];
      const corners = obj.corners.map(([x, y]) => [x * k, y * k]);
      const outline = obj.solution ? ARGrid.COLORS.outline.solved : ARGrid.COLORS.outline.other;
      ARGrid.drawMarks(ctx, corners, obj.marks, { outline });
    }
    hintBtn.disabled = !(obj.mode === "hint" && obj.marks);
    sayEl.textContent = (obj.marks && obj.marks.text) || obj.say || "";
    show(`${stats.fps.toFixed(1)} fps · latency ${stats.latency_ms.toFixed(0)} ms (median; server ${obj.server_ms.toFixed(0)} ms)`
      + ` · ${obj.status.replace("_", " ")}${obj.solution ? " ✓" : ""}`);
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
    const w = Math.min(WIDTH, vw), h = Math.round((vh * w) / vw);
    if (cap.width !== w || cap.height !== h) { cap.width = w; cap.height = h; }
    const t = performance.now(); // capture time: the latency counts from here to the reply
    capCtx.drawImage(video, 0, 0, w, h);
    const blob = await new Promise((resolve) => cap.toBlob(resolve, "image/jpeg", QUALITY));
    if (!blob || !ws || ws.readyState !== WebSocket.OPEN) { inFlight = false; return; }
    sentAt = t;
    ws.send(blob);
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
  document.addEventListener("visibilitychange", () => { if (!document.hidden) next(); });
  start();
})();
