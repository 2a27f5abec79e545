# ruff: noqa: E501  (the page's JavaScript below keeps its own line lengths)
"""The style and script that ``view.py`` inlines into the viewer page (vanilla JS, no
libraries, nothing fetched). The script reads the JSON of ``view.page_data`` from the
element ``#airqueue-data``.

Drawing: the links on a static SVG backdrop, above it one SVG with a circle per node (its fill and radius follow the queue length of the
current frame; only nodes whose colour bucket changed are touched, so a frame costs what
changed), one path for all links, one polyline per flow route (width by the flow's goodput
in the frame). ``window.airqueueView`` exposes the frame count and ``setFrame`` for tests.
"""

PAGE_CSS = """
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 13px/1.35 system-ui, -apple-system, "Segoe UI",
  Roboto, "DejaVu Sans", sans-serif; color: #1d2330; background: #f6f7f9; }
body { display: flex; }
#map-pane { flex: 1; position: relative; min-width: 0; }
#map, #backdrop { position: absolute; inset: 0; width: 100%; height: 100%; display: block;
  will-change: transform; }
#backdrop { background: #fff; }
#side { width: 380px; height: 100%; overflow-y: auto; padding: 10px 14px;
  border-left: 1px solid #d8dce3; background: #fbfbfc; }
h1 { font-size: 17px; margin: 2px 0 2px; }
h2 { font-size: 13px; margin: 14px 0 6px; text-transform: uppercase; letter-spacing: .04em;
  color: #4a5263; }
p { margin: 0; }
.small { font-size: 12px; color: #3b4252; }
.row { display: flex; align-items: center; gap: 8px; margin: 6px 0; }
#time { flex: 1; }
button { font: inherit; padding: 3px 10px; border: 1px solid #9aa3b5; border-radius: 4px;
  background: #fff; cursor: pointer; min-width: 72px; }
select { font: inherit; }
#flow-select { width: 100%; }
.link { stroke: #b9c0cc; stroke-width: 0.7; fill: none; vector-effect: non-scaling-stroke; }
.wire { stroke: #7d8699; stroke-dasharray: 4 3; stroke-width: 1.2; fill: none;
  vector-effect: non-scaling-stroke; }
.flow { fill: none; stroke-linecap: round; stroke-linejoin: round; opacity: .72;
  vector-effect: non-scaling-stroke; cursor: pointer; }
.flow.dim { opacity: .12; }
.flow.selected { opacity: .95; }
.node { stroke: #39404f; stroke-width: 0.6; vector-effect: non-scaling-stroke; cursor: pointer; }
.node.wired { stroke-dasharray: 2 2; }
.node.selected { stroke: #d7263d; stroke-width: 2.5; }
.label { font-size: 11px; fill: #2c3240; pointer-events: none; paint-order: stroke;
  stroke: #fff; stroke-width: 3px; }
#tooltip { position: absolute; pointer-events: none; background: rgba(29,35,48,.92);
  color: #fff; padding: 4px 7px; border-radius: 4px; font-size: 12px; white-space: nowrap; }
.legend-row { display: flex; align-items: center; gap: 6px; margin: 3px 0; font-size: 12px; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; }
.ramp { height: 10px; flex: 1; border-radius: 2px; border: 1px solid #ccd; }
.bar { display: flex; height: 11px; flex: 1; background: #eef0f4; border-radius: 2px;
  overflow: hidden; }
.bar span { display: block; height: 100%; }
.drop-row { display: flex; align-items: center; gap: 6px; margin: 2px 0; font-size: 12px;
  cursor: pointer; }
.drop-row .who { width: 62px; }
.drop-row .n { width: 54px; text-align: right; font-variant-numeric: tabular-nums; }
.chart { width: 100%; height: 108px; display: block; margin-top: 4px; }
.chart text { font-size: 10px; fill: #4a5263; }
.chart .axis { stroke: #c3c8d2; stroke-width: 1; }
.chart .cursor { stroke: #d7263d; stroke-width: 1; }
table { border-collapse: collapse; font-size: 12px; }
td { padding: 1px 6px 1px 0; }
"""

PAGE_JS = r"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("airqueue-data").textContent);
  const N = D.nodes.x.length, F = D.times_s.length;
  const SVGNS = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  const svg = $("map");
  const fmt = (v, d) => (v === null || v === undefined ? "-" : Number(v).toFixed(d));
  const rate = (kbps) => (kbps >= 1000 ? fmt(kbps / 1000, 2) + " Mb/s" : fmt(kbps, 0) + " kb/s");
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;",
    ">": "&gt;", '"': "&quot;"}[c]));

  // Geometry: metres with y up -> SVG user units with y down.
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < N; i++) {
    x0 = Math.min(x0, D.nodes.x[i]); x1 = Math.max(x1, D.nodes.x[i]);
    y0 = Math.min(y0, D.nodes.y[i]); y1 = Math.max(y1, D.nodes.y[i]);
  }
  const span = Math.max(x1 - x0, y1 - y0, 1);
  const pad = span * 0.06;
  // Static links on a backdrop of their own, so that a frame repaints only the map above.
  for (const s of [svg, $("backdrop")]) {
    s.setAttribute("viewBox", [x0 - pad, -(y1 + pad), x1 - x0 + 2 * pad, y1 - y0 + 2 * pad].join(" "));
    s.setAttribute("preserveAspectRatio", "xMidYMid meet");
  }
  const PX = (x) => x, PY = (y) => -y;
  // Node radius in metres: small for dense maps, growing with the queue.
  const R0 = span / Math.max(110, 14 * Math.sqrt(N)), RMAX = R0 * 2.6;

  // Queue colour: light grey when empty, then a perceptual ramp (viridis, reversed) to
  // dark purple at the run's largest queue.
  const RAMP = ["#fde725", "#b5de2b", "#6ece58", "#35b779", "#1f9e89", "#26828e",
    "#31688e", "#3e4989", "#482878", "#440154"];
  const EMPTY = "#e9ecf1";
  let qmax = 1;
  for (const row of D.queue) for (const q of row) if (q > qmax) qmax = q;
  const BUCKETS = 40;
  const bucketOf = (q) => (q <= 0 ? 0 : 1 + Math.min(BUCKETS - 1, Math.floor((q / qmax) * BUCKETS)));
  function rampColour(f) {  // f in [0, 1]
    const p = Math.max(0, Math.min(1, f)) * (RAMP.length - 1), k = Math.floor(p);
    if (k >= RAMP.length - 1) return RAMP[RAMP.length - 1];
    const a = hex(RAMP[k]), b = hex(RAMP[k + 1]), t = p - k;
    return "rgb(" + a.map((v, j) => Math.round(v + (b[j] - v) * t)).join(",") + ")";
  }
  function hex(h) { return [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)); }
  const FILL = [EMPTY], RADIUS = [R0];
  for (let b = 1; b <= BUCKETS; b++) {
    FILL.push(rampColour((b - 0.5) / BUCKETS));
    RADIUS.push(R0 + (RMAX - R0) * Math.sqrt(b / BUCKETS));
  }

  // Static colourings: total drops per node, mean MAC level per node.
  const dropTotal = new Array(N).fill(0);
  for (const [node, counts] of Object.entries(D.drops.by_node)) {
    dropTotal[+node] = counts.reduce((s, v) => s + v, 0);
  }
  const maxDrop = Math.max(1, ...dropTotal);
  const levels = D.mac_levels.levels;
  const manyLevels = levels.length > 1;
  const meanLevel = new Array(N).fill(null);
  for (const [node, counts] of Object.entries(D.mac_levels.by_node)) {
    const tot = counts.reduce((s, v) => s + v, 0);
    if (tot > 0) meanLevel[+node] = counts.reduce((s, v, j) => s + v * levels[j], 0) / tot;
  }
  const maxLevel = Math.max(1, ...levels);

  // Links: one path element for all radio links, one for wires.
  function linkPath(wire) {
    const parts = [];
    for (let k = 0; k < D.links.a.length; k++) {
      if (!!D.links.wire[k] !== wire) continue;
      const a = D.links.a[k], b = D.links.b[k];
      parts.push("M" + PX(D.nodes.x[a]).toFixed(1) + " " + PY(D.nodes.y[a]).toFixed(1) +
        "L" + PX(D.nodes.x[b]).toFixed(1) + " " + PY(D.nodes.y[b]).toFixed(1));
    }
    return parts.join("");
  }
  for (const wire of [false, true]) {
    const d = linkPath(wire);
    if (!d) continue;
    const p = document.createElementNS(SVGNS, "path");
    p.setAttribute("class", wire ? "wire" : "link");
    p.setAttribute("d", d);
    $("links").appendChild(p);
  }

  // Flows along their routes; width by goodput in the frame.
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
  const flowColour = (i) => PALETTE[i % PALETTE.length];
  let gmax = 1;
  for (const f of D.flows) for (const g of f.frames_kbps) if (g > gmax) gmax = g;
  const WMIN = 1.2, WMAX = 9;
  const routeEls = [];
  const lastWidth = [];
  for (const f of D.flows) {
    if (f.route.length < 2) { routeEls.push(null); lastWidth.push(null); continue; }
    const pl = document.createElementNS(SVGNS, "polyline");
    pl.setAttribute("class", "flow");
    pl.setAttribute("data-flow", f.id);
    pl.setAttribute("stroke", flowColour(f.id));
    pl.setAttribute("points", f.route.map((n) => PX(D.nodes.x[n]).toFixed(1) + "," +
      PY(D.nodes.y[n]).toFixed(1)).join(" "));
    pl.addEventListener("click", (ev) => { ev.stopPropagation(); selectFlow(f.id); });
    pl.addEventListener("mousemove", (ev) => tip(ev, "flow " + f.id + " (" + f.kind + ") " +
      f.src + " \u2192 " + f.dst + ": " + rate(f.frames_kbps[frame])));
    pl.addEventListener("mouseleave", hideTip);
    $("routes").appendChild(pl);
    routeEls.push(pl); lastWidth.push(null);
  }

  // One circle per node.
  const circles = new Array(N);
  const lastBucket = new Int16Array(N).fill(-1);
  const g = $("nodes");
  for (let i = 0; i < N; i++) {
    const c = document.createElementNS(SVGNS, "circle");
    c.setAttribute("class", D.nodes.wired[i] ? "node wired" : "node");
    c.setAttribute("data-node", i);
    c.setAttribute("cx", PX(D.nodes.x[i]).toFixed(2));
    c.setAttribute("cy", PY(D.nodes.y[i]).toFixed(2));
    c.setAttribute("r", R0.toFixed(2));
    c.addEventListener("click", (ev) => { ev.stopPropagation(); selectNode(i); });
    c.addEventListener("mousemove", (ev) => tip(ev, "node " + i + ": queue " +
      D.queue[frame][i] + " pkts" + (dropTotal[i] ? ", " + dropTotal[i] + " drops" : "")));
    c.addEventListener("mouseleave", hideTip);
    g.appendChild(c);
    circles[i] = c;
  }
  // Labels only where they stay readable.
  if (N <= 80) {
    for (let i = 0; i < N; i++) {
      const t = document.createElementNS(SVGNS, "text");
      t.setAttribute("class", "label");
      t.setAttribute("x", (PX(D.nodes.x[i]) + R0 * 1.3).toFixed(1));
      t.setAttribute("y", (PY(D.nodes.y[i]) - R0 * 1.3).toFixed(1));
      t.textContent = i;
      $("labels").appendChild(t);
    }
  }

  const tipEl = $("tooltip");
  function tip(ev, text) {
    const box = $("map-pane").getBoundingClientRect();
    tipEl.hidden = false;
    tipEl.textContent = text;
    tipEl.style.left = (ev.clientX - box.left + 12) + "px";
    tipEl.style.top = (ev.clientY - box.top + 12) + "px";
  }
  function hideTip() { tipEl.hidden = true; }

  // Colour modes.
  const modes = [["queue", "queue length (animated)"], ["drops", "drops (whole run)"]];
  if (manyLevels) modes.push(["level", "mean MAC priority level"]);
  for (const [v, label] of modes) {
    const o = document.createElement("option");
    o.value = v; o.textContent = label;
    $("colour-by").appendChild(o);
  }
  let mode = "queue";
  $("colour-by").addEventListener("change", (ev) => { mode = ev.target.value; repaint(); });

  let frame = 0;
  function drawNodes() {
    const row = D.queue[frame];
    for (let i = 0; i < N; i++) {
      let b;
      if (mode === "queue") b = bucketOf(row[i]);
      else if (mode === "drops") b = dropTotal[i] ? 1 + Math.min(BUCKETS - 1, Math.floor(dropTotal[i] / maxDrop * BUCKETS)) : 0;
      else b = meanLevel[i] === null ? 0 : 1 + Math.min(BUCKETS - 1, Math.floor(meanLevel[i] / maxLevel * BUCKETS));
      if (b === lastBucket[i]) continue;  // only what changed
      lastBucket[i] = b;
      circles[i].setAttribute("fill", FILL[b]);
      circles[i].setAttribute("r", (mode === "queue" ? RADIUS[b] : R0 * 1.4).toFixed(2));
    }
  }
  function drawFlows() {
    for (let k = 0; k < D.flows.length; k++) {
      const el = routeEls[k];
      if (!el) continue;
      const w = (WMIN + (WMAX - WMIN) * Math.sqrt(D.flows[k].frames_kbps[frame] / gmax)).toFixed(1);
      if (w === lastWidth[k]) continue;
      lastWidth[k] = w;
      el.setAttribute("stroke-width", w);
    }
  }
  function repaint() { lastBucket.fill(-1); drawLegend(); setFrame(frame); }
  function setFrame(i) {
    frame = Math.max(0, Math.min(F - 1, i | 0));
    $("time").value = frame;
    const t = D.times_s[frame];
    $("clock").textContent = "t = " + fmt(t, 2) + " s  (frame " + (frame + 1) + "/" + F + ")";
    drawNodes();
    drawFlows();
    drawCursors(t);
    if (selectedNode !== null) nodeInfo(selectedNode);
  }

  // Time slider and play/pause.
  $("time").max = F - 1;
  $("time").addEventListener("input", (ev) => setFrame(+ev.target.value));
  let playing = false, lastTick = 0, acc = 0;
  function tick(now) {
    if (!playing) return;
    const fps = +$("speed").value;
    acc += (now - lastTick) / 1000 * fps;
    lastTick = now;
    if (acc >= 1) {
      const steps = Math.floor(acc); acc -= steps;
      if (frame + steps >= F - 1) { setFrame(F - 1); togglePlay(false); return; }
      setFrame(frame + steps);
    }
    requestAnimationFrame(tick);
  }
  function togglePlay(on) {
    playing = on === undefined ? !playing : on;
    $("play").innerHTML = playing ? "&#10074;&#10074; pause" : "&#9654; play";
    if (playing) {
      if (frame >= F - 1) setFrame(0);
      lastTick = performance.now(); acc = 0;
      requestAnimationFrame(tick);
    }
  }
  $("play").addEventListener("click", () => togglePlay());
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "SELECT") return;
    if (ev.key === " ") { ev.preventDefault(); togglePlay(); }
    if (ev.key === "ArrowRight") setFrame(frame + 1);
    if (ev.key === "ArrowLeft") setFrame(frame - 1);
  });

  // Header.
  $("title").textContent = D.name;
  const facts = [N + " nodes", D.flows.length + " flows", "seed " + D.seed];
  if (D.duration_s !== null) facts.push(fmt(D.duration_s, 1) + " s simulated");
  if (D.queue_kind) facts.push("queue " + D.queue_kind);
  if (D.aggregate_goodput_bps !== null) facts.push("aggregate " + rate(D.aggregate_goodput_bps / 1e3));
  if (D.jain_index !== null) facts.push("Jain " + fmt(D.jain_index, 3));
  $("facts").textContent = facts.join(" \u00b7 ");

  // Legend.
  function drawLegend() {
    const L = $("legend");
    let h = "";
    const what = mode === "queue" ? "queue length (packets)" : mode === "drops" ?
      "drops per node (packets)" : "mean MAC priority level";
    const top = mode === "queue" ? qmax : mode === "drops" ? maxDrop : maxLevel;
    const stops = RAMP.map((c, k) => c + " " + (k / (RAMP.length - 1) * 100).toFixed(0) + "%");
    h += '<div class="legend-row"><span>' + what + '</span></div>';
    h += '<div class="legend-row"><span class="swatch" style="background:' + EMPTY +
      ';border:1px solid #bbb"></span><span>0</span><span class="ramp" style="background:' +
      'linear-gradient(90deg,' + stops.join(",") + ')"></span><span>' + top + '</span></div>';
    h += '<div class="legend-row"><svg width="28" height="10"><line x1="0" y1="5" x2="28" y2="5" ' +
      'stroke="#b9c0cc" stroke-width="1.4"/></svg><span>radio link (received power &ge; receive ' +
      'threshold)</span></div>';
    if (D.links.wire.some((w) => w)) h += '<div class="legend-row"><svg width="28" height="10">' +
      '<line x1="0" y1="5" x2="28" y2="5" stroke="#7d8699" stroke-dasharray="4 3" ' +
      'stroke-width="1.4"/></svg><span>wire</span></div>';
    h += '<div class="legend-row"><svg width="28" height="12"><line x1="0" y1="6" x2="28" y2="6" ' +
      'stroke="#555" stroke-width="' + WMIN + '"/></svg><span>0</span><svg width="28" height="12">' +
      '<line x1="0" y1="6" x2="28" y2="6" stroke="#555" stroke-width="' + WMAX + '"/></svg><span>' +
      rate(gmax) + ': flow goodput along its route</span></div>';
    L.innerHTML = h;
  }

  // Flows: list, details and charts.
  const sel = $("flow-select");
  const none = document.createElement("option");
  none.value = ""; none.textContent = "select a flow (or click its route)";
  sel.appendChild(none);
  for (const f of D.flows) {
    const o = document.createElement("option");
    o.value = f.id;
    o.textContent = "flow " + f.id + " \u00b7 " + f.kind + " \u00b7 " + f.src + " \u2192 " + f.dst +
      " \u00b7 " + rate(f.goodput_kbps);
    sel.appendChild(o);
  }
  sel.addEventListener("change", () => selectFlow(sel.value === "" ? null : +sel.value));
  let selectedFlow = null;
  const charts = [];
  function selectFlow(id) {
    selectedFlow = id;
    sel.value = id === null ? "" : String(id);
    routeEls.forEach((el, k) => {
      if (!el) return;
      el.classList.toggle("dim", id !== null && k !== id);
      el.classList.toggle("selected", k === id);
    });
    charts.length = 0;
    $("charts").innerHTML = "";
    if (id === null) { $("flow-info").textContent = ""; return; }
    const f = D.flows[id];
    $("flow-info").innerHTML = esc(f.kind) + " from node " + f.src + " to " + f.dst +
      ", mean goodput " + rate(f.goodput_kbps) + "<br>route: " +
      (f.route.length ? f.route.join(" \u2192 ") : "none recorded") +
      (f.route.length && D.routing_kind && D.routing_kind !== "static"
        ? " (the idle network's shortest path; " + esc(D.routing_kind.toUpperCase()) +
          " may have used others)" : "");
    chart("goodput (kb/s)", D.times_s, f.frames_kbps, flowColour(id));
    if (f.cwnd) chart("TCP cwnd (packets)", f.cwnd.t, f.cwnd.v, "#444");
    if (f.rtt_ms) chart("TCP smoothed RTT (ms)", f.rtt_ms.t, f.rtt_ms.v, "#8c564b");
    if (f.rate_kbps) chart("sending rate (kb/s)", f.rate_kbps.t, f.rate_kbps.v, "#9467bd");
    drawCursors(D.times_s[frame]);
  }
  const T0 = D.times_s[0], T1 = Math.max(D.times_s[F - 1], T0 + 1e-9);
  function chart(title, ts, vs, colour) {
    const W = 350, H = 108, l = 38, r = 6, t = 14, b = 16;
    let vmax = 0;
    for (const v of vs) if (v !== null && v > vmax) vmax = v;
    vmax = vmax > 0 ? vmax * 1.08 : 1;
    const X = (x) => l + (x - T0) / (T1 - T0) * (W - l - r);
    const Y = (y) => H - b - y / vmax * (H - t - b);
    const pts = [];
    for (let k = 0; k < ts.length; k++) if (vs[k] !== null) pts.push(X(ts[k]).toFixed(1) + "," + Y(vs[k]).toFixed(1));
    const s = document.createElementNS(SVGNS, "svg");
    s.setAttribute("class", "chart");
    s.setAttribute("viewBox", "0 0 " + W + " " + H);
    s.innerHTML = '<text x="' + l + '" y="10">' + esc(title) + '</text>' +
      '<line class="axis" x1="' + l + '" y1="' + (H - b) + '" x2="' + (W - r) + '" y2="' + (H - b) + '"/>' +
      '<line class="axis" x1="' + l + '" y1="' + t + '" x2="' + l + '" y2="' + (H - b) + '"/>' +
      '<text x="' + (l - 3) + '" y="' + (t + 4) + '" text-anchor="end">' + fmt(vmax, vmax < 10 ? 1 : 0) + '</text>' +
      '<text x="' + (l - 3) + '" y="' + (H - b) + '" text-anchor="end">0</text>' +
      '<text x="' + l + '" y="' + (H - 3) + '">' + fmt(T0, 0) + ' s</text>' +
      '<text x="' + (W - r) + '" y="' + (H - 3) + '" text-anchor="end">' + fmt(T1, 0) + ' s</text>' +
      '<polyline fill="none" stroke="' + colour + '" stroke-width="1.4" points="' + pts.join(" ") + '"/>' +
      '<line class="cursor" y1="' + t + '" y2="' + (H - b) + '"/>';
    $("charts").appendChild(s);
    charts.push({ cursor: s.querySelector(".cursor"), X });
  }
  function drawCursors(t) {
    for (const c of charts) { const x = c.X(t).toFixed(1); c.cursor.setAttribute("x1", x); c.cursor.setAttribute("x2", x); }
  }

  // Node details.
  let selectedNode = null;
  function selectNode(i) {
    if (selectedNode !== null) circles[selectedNode].classList.remove("selected");
    selectedNode = i;
    if (i !== null) circles[i].classList.add("selected");
    nodeInfo(i);
  }
  function nodeInfo(i) {
    if (i === null) { $("node-info").textContent = "click a node"; return; }
    let sum = 0, peak = 0;
    for (let f = 0; f < F; f++) { sum += D.queue[f][i]; peak = Math.max(peak, D.queue[f][i]); }
    let h = "<b>node " + i + "</b>" + (D.nodes.wired[i] ? " (wired host, no radio)" : " at (" +
      fmt(D.nodes.x[i], 0) + ", " + fmt(D.nodes.y[i], 0) + ") m") + "<br>queue now " +
      D.queue[frame][i] + " pkts, mean " + fmt(sum / F, 1) + ", peak " + peak;
    const dr = D.drops.by_node[i];
    if (dr) h += "<br>drops: " + D.drops.reasons.map((r, k) => dr[k] ? esc(r) + " " + dr[k] : "").filter((s) => s).join(", ");
    const lv = D.mac_levels.by_node[i];
    if (lv && manyLevels) h += "<br>MAC levels (data frames): " + levels.map((l, k) => lv[k] ? "L" + l + " " + lv[k] : "").filter((s) => s).join(", ");
    const via = D.flows.filter((f) => f.route.includes(i)).map((f) => f.id);
    if (via.length) h += "<br>on the routes of flows " + via.join(", ");
    $("node-info").innerHTML = h;
  }
  svg.addEventListener("click", () => { selectNode(null); selectFlow(null); });

  // Drops by node and reason: totals per reason, the nodes with most drops.
  const REASON_COLOURS = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#1f77b4", "#2ca02c", "#7f7f7f"];
  (function drops() {
    const reasons = D.drops.reasons;
    if (!reasons.length) { $("drops").innerHTML = '<p class="small">no drops</p>'; return; }
    const tot = reasons.map((_, k) => Object.values(D.drops.by_node).reduce((s, c) => s + c[k], 0));
    let h = "";
    reasons.forEach((r, k) => {
      h += '<div class="legend-row"><span class="swatch" style="background:' +
        REASON_COLOURS[k % REASON_COLOURS.length] + '"></span><span>' + esc(r) + ": " + tot[k] + "</span></div>";
    });
    const order = Object.keys(D.drops.by_node).map(Number).sort((a, b) => dropTotal[b] - dropTotal[a]).slice(0, 12);
    for (const node of order) {
      const counts = D.drops.by_node[node];
      h += '<div class="drop-row" data-node="' + node + '"><span class="who">node ' + node +
        '</span><span class="bar">' + counts.map((c, k) => c ? '<span style="width:' +
        (c / maxDrop * 100).toFixed(2) + "%;background:" + REASON_COLOURS[k % REASON_COLOURS.length] +
        '" title="' + esc(reasons[k]) + " " + c + '"></span>' : "").join("") +
        '</span><span class="n">' + dropTotal[node] + "</span></div>";
    }
    if (Object.keys(D.drops.by_node).length > order.length) h += '<p class="small">(' +
      order.length + " of " + Object.keys(D.drops.by_node).length + " nodes with drops)</p>";
    $("drops").innerHTML = h;
    for (const el of document.querySelectorAll(".drop-row")) {
      el.addEventListener("click", () => selectNode(+el.dataset.node));
    }
  })();

  // MAC priority levels in use (DiffQ's EDCA levels, seed 000 Table 1).
  if (manyLevels) {
    $("levels-section").hidden = false;
    const total = D.mac_levels.total.reduce((s, v) => s + v, 0) || 1;
    const nodesAt = levels.map((_, k) => Object.values(D.mac_levels.by_node).filter((c) => c[k] > 0).length);
    let h = "";
    levels.forEach((l, k) => {
      h += '<div class="legend-row"><span class="who" style="width:58px">level ' + l +
        '</span><span class="bar"><span style="width:' + (D.mac_levels.total[k] / total * 100).toFixed(2) +
        '%;background:' + rampColour(l / maxLevel) + '"></span></span><span style="width:150px;white-space:nowrap">' +
        D.mac_levels.total[k] + " frames, " + nodesAt[k] + " nodes</span></div>";
    });
    $("levels").innerHTML = h;
  }

  drawLegend();
  setFrame(0);
  window.airqueueView = { frames: F, nodes: N, setFrame, frame: () => frame };
})();
"""
