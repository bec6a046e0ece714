// SPDX-License-Identifier: GPL-3.0-or-later
// beatmap studio: the page. Plain JavaScript, no framework, nothing from outside this server.
// Every change to the map is made by the server (POST /api/edit), so the page and the library share one
// code path; the page only draws, plays and sends keys.
import { PlaybackClock, firstAtOrAfter, barPositions, tempoStretches, bpmText, stretchLabel } from "/clock.js";

const LOOKAHEAD = 0.3; // seconds of clicks scheduled ahead on the audio clock
const TICK_MS = 25; // how often the scheduler refills
const START_MARGIN = 0.05; // a source starts this far after now, so its first samples are not late
const $ = (id) => document.getElementById(id);

const token = new URLSearchParams(location.hash.slice(1)).get("token") || "";

const state = {
  info: null,
  mapText: "",
  map: null,
  bars: [],
  stretches: [], // the tempo as drawn: steady segments, and runs of short ones as one moving stretch
  peaks: null,
  buffer: null,
  duration: 0,
  nudgeMs: 0,
  dirty: false,
  undo: [],
  findings: null,
  loop: null, // {start, end}
  musicOn: true,
  clicksOn: true,
  view: { start: 0, secondsPerPixel: 0.01 },
  dragGridMs: 0,
  taps: [],
  draws: 0,
};

// ---------------------------------------------------------------- audio

const ctx = new AudioContext({ latencyHint: "interactive" });
const clock = new PlaybackClock(() => ctx.currentTime);
const musicGain = ctx.createGain();
const clickGain = ctx.createGain();
musicGain.connect(ctx.destination);
clickGain.connect(ctx.destination);
let source = null; // the music's AudioBufferSourceNode while playing
let scheduledUntil = 0; // track seconds (unwrapped) up to which clicks are scheduled
let pending = []; // click sources not yet played: {node, when}
const scheduledLog = []; // for tests: the latest scheduled clicks
const clickBuffers = { normal: makeClick(1000, 0.5), accent: makeClick(1600, 1.0) };

function makeClick(frequency, level) {
  const rate = ctx.sampleRate;
  const length = Math.round(rate * 0.03);
  const buffer = ctx.createBuffer(1, length, rate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < length; i++) {
    const t = i / rate;
    data[i] = level * Math.sin(2 * Math.PI * frequency * t) * Math.exp(-t / 0.006);
  }
  return buffer;
}

/** The context time being heard now (the output's own timestamp when the browser gives one). */
function heardContextTime() {
  if (ctx.getOutputTimestamp) {
    const stamp = ctx.getOutputTimestamp();
    if (stamp.contextTime > 0 && stamp.performanceTime > 0) {
      return stamp.contextTime + (performance.now() - stamp.performanceTime) / 1000;
    }
  }
  return ctx.currentTime - (ctx.outputLatency || ctx.baseLatency || 0);
}

/** Unwrapped track time to track time, with the loop folded in. */
function wrap(u) {
  const loop = state.loop;
  if (!loop || u < loop.end) return u;
  const length = loop.end - loop.start;
  return loop.start + ((u - loop.start) % length);
}

function position() {
  if (!clock.isPlaying) return clock.savedPosition;
  // Before the source's first sample is heard the clock reads a little before where it starts.
  return Math.max(0, Math.min(wrap(clock.positionAt(heardContextTime())), state.duration));
}

function startSource(at) {
  if (!state.buffer) return;
  const when = ctx.currentTime + START_MARGIN;
  source = ctx.createBufferSource();
  source.buffer = state.buffer;
  if (state.loop) {
    source.loop = true;
    source.loopStart = state.loop.start;
    source.loopEnd = state.loop.end;
  }
  source.connect(musicGain);
  source.start(when, at);
  clock.start(at);
  clock.synchronize(at, when);
  scheduledUntil = at;
  const ended = source;
  source.onended = () => { if (source === ended && clock.isPlaying && !state.loop) stop(true); };
  schedule();
}

function stopSource() {
  if (source) { source.onended = null; try { source.stop(); } catch (_) { /* not started */ } source = null; }
  cancelClicks();
}

function cancelClicks() {
  for (const click of pending) { try { click.node.stop(); } catch (_) { /* already played */ } }
  pending = [];
}

async function play() {
  if (!state.buffer || clock.isPlaying) return;
  if (ctx.state !== "running") await ctx.resume();
  let at = clock.savedPosition;
  if (at >= state.duration - 0.01) at = 0;
  if (state.loop && (at < state.loop.start || at >= state.loop.end)) at = state.loop.start;
  startSource(at);
  render();
}

function stop(atEnd = false) {
  if (!clock.isPlaying) return;
  const at = atEnd ? state.duration : position();
  stopSource();
  clock.pause();
  clock.seek(at);
  render();
}

function togglePlay() { if (clock.isPlaying) stop(); else play(); }

function seek(to) {
  const at = Math.max(0, Math.min(to, state.duration));
  if (state.loop && (at < state.loop.start || at >= state.loop.end)) state.loop = null; // seeking out ends a loop
  if (clock.isPlaying) { stopSource(); startSource(at); } else clock.seek(at);
  followPlayhead(true);
  render();
}

/** Schedules every click whose time falls before now + LOOKAHEAD on the audio clock. */
function schedule() {
  if (!clock.isPlaying || !state.map) return;
  const horizon = clock.positionAt(ctx.currentTime) + LOOKAHEAD;
  if (horizon <= scheduledUntil) return;
  const beats = state.map.beats;
  const from = scheduledUntil;
  const add = (index, unwrapped) => {
    const when = clock.timeOf(unwrapped);
    if (when < ctx.currentTime) return;
    const accent = !!(state.bars[index] && state.bars[index].beat === 1);
    const node = ctx.createBufferSource();
    node.buffer = accent ? clickBuffers.accent : clickBuffers.normal;
    node.connect(clickGain);
    node.start(when);
    pending.push({ node, when });
    node.onended = () => { pending = pending.filter((c) => c.node !== node); };
    scheduledLog.push({ index, beat: beats[index], when, unwrapped, scheduledAt: ctx.currentTime, accent });
    if (scheduledLog.length > 2000) scheduledLog.splice(0, scheduledLog.length - 2000);
  };
  const loop = state.loop;
  if (!loop) {
    for (let i = firstAtOrAfter(beats, from); i < beats.length && beats[i] < horizon; i++) add(i, beats[i]);
  } else {
    const length = loop.end - loop.start;
    const first = firstAtOrAfter(beats, loop.start);
    let cycle = Math.max(0, Math.floor((from - loop.start) / length));
    for (; loop.start + cycle * length < horizon; cycle++) {
      for (let i = first; i < beats.length && beats[i] < loop.end; i++) {
        const u = beats[i] + cycle * length;
        if (u >= from && u < horizon) add(i, u);
      }
    }
  }
  scheduledUntil = horizon;
}

/** After the map changes while playing: the clicks not yet played are scheduled again. */
function rescheduleClicks() {
  if (!clock.isPlaying) return;
  cancelClicks();
  scheduledUntil = clock.positionAt(ctx.currentTime);
  schedule();
}

// A timer in a Worker keeps ticking when the tab is in the background (page timers are throttled).
let ticker;
try {
  const code = `setInterval(() => postMessage(0), ${TICK_MS});`;
  ticker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  ticker.onmessage = tick;
} catch (_) {
  setInterval(tick, TICK_MS);
}
function tick() {
  schedule();
}

// ---------------------------------------------------------------- server

async function api(path, options = {}) {
  const headers = Object.assign({ "X-Beatmap-Token": token }, options.headers || {});
  const response = await fetch(path, Object.assign({}, options, { headers }));
  return response;
}

async function jsonOrThrow(response) {
  const text = await response.text();
  let body = null;
  try { body = JSON.parse(text); } catch (_) { /* not JSON */ }
  if (!response.ok) throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  return body;
}

function setMap(text, { dirty = true, keepUndo = false } = {}) {
  if (!keepUndo && state.mapText) {
    state.undo.push({ text: state.mapText, nudgeMs: state.nudgeMs, dirty: state.dirty });
    if (state.undo.length > 200) state.undo.shift();
  }
  state.mapText = text;
  state.map = JSON.parse(text);
  state.map.beats = state.map.beats || [];
  state.bars = barPositions(state.map);
  state.stretches = tempoStretches(state.map);
  state.dirty = dirty;
  $("undo").disabled = state.undo.length === 0;
  fillMeter();
  rescheduleClicks();
  requestFindings();
  render();
}

// Edits run one after another, each on the map the previous one returned (keys pressed quickly must
// not send the same map twice).
let editQueue = Promise.resolve();
function edit(query, label) {
  const run = editQueue.then(() => editNow(query, label));
  editQueue = run.catch(() => false);
  return run;
}

async function editNow(query, label) {
  try {
    const response = await api(`/api/edit?${query}`, { method: "POST", body: state.mapText });
    const text = await response.text();
    if (!response.ok) {
      let reason = text;
      try { reason = JSON.parse(text).error; } catch (_) { /* keep text */ }
      throw new Error(reason);
    }
    setMap(text);
    if (label) message(label);
    return true;
  } catch (error) {
    message(error.message, "error");
    return false;
  }
}

async function nudge(ms) {
  if (!ms) return;
  const rounded = Math.round(ms * 10) / 10;
  if (await edit(`op=nudge&ms=${rounded}`)) {
    state.nudgeMs = Math.round((state.nudgeMs + rounded) * 10) / 10;
    message(`nudged ${signed(rounded)} ms`);
  }
}

let findingsTimer = null;
function requestFindings() {
  clearTimeout(findingsTimer);
  findingsTimer = setTimeout(async () => {
    try {
      const report = await jsonOrThrow(await api("/api/validate", { method: "POST", body: state.mapText }));
      state.findings = report;
      showFindings();
    } catch (error) {
      message(`cannot check the map: ${error.message}`, "error");
    }
  }, 150);
}

async function save() {
  await editQueue;
  message("saving…");
  try {
    const response = await api("/api/map", {
      method: "PUT", body: state.mapText, headers: { "Content-Type": "application/json" },
    });
    const body = await response.json().catch(() => null);
    if (response.status === 422 && body) {
      state.findings = body.findings;
      showFindings();
      throw new Error(`${body.error} (${body.findings.errors} errors)`);
    }
    if (!response.ok) throw new Error((body && body.error) || `${response.status}`);
    state.dirty = false;
    state.findings = body.findings;
    showFindings();
    state.lastSave = body;
    message(`saved ${body.saved}` + (body.backup ? `; the previous file is kept as ${body.backup}` : ""), "ok");
  } catch (error) {
    message(`not saved: ${error.message}`, "error");
  }
  render();
}

function undo() {
  const previous = state.undo.pop();
  if (!previous) return;
  state.nudgeMs = previous.nudgeMs;
  setMap(previous.text, { dirty: previous.dirty, keepUndo: true });
  message("undone");
}

// ---------------------------------------------------------------- findings

function showFindings() {
  const report = state.findings;
  const list = $("findings");
  list.textContent = "";
  if (!report) return;
  $("findings-summary").textContent =
    `${report.errors} error${report.errors === 1 ? "" : "s"}, ${report.warnings} warning${report.warnings === 1 ? "" : "s"}`;
  for (const finding of report.findings) {
    const item = document.createElement("li");
    item.className = finding.severity;
    item.dataset.rule = finding.rule;
    const rule = document.createElement("span");
    rule.className = "rule";
    rule.textContent = `[${finding.rule}] `;
    item.append(rule, finding.message);
    if (finding.fix) {
      // The rule's own fix, made by the server's editor like every edit of the page (undo takes it back).
      const fix = document.createElement("button");
      fix.className = "fix";
      fix.textContent = "fix";
      fix.title = finding.fix.label;
      fix.addEventListener("click", (event) => {
        event.stopPropagation();
        edit(new URLSearchParams(finding.fix.query).toString(), finding.fix.label);
      });
      item.append(" ", fix);
    }
    const time = findingTime(finding);
    if (time !== null) {
      item.title = `seek to ${clockText(time)}`;
      item.addEventListener("click", () => { seek(time); followPlayhead(true, true); });
    }
    list.append(item);
  }
  for (const note of report.notes || []) {
    const item = document.createElement("li");
    item.className = "note";
    item.textContent = note;
    list.append(item);
  }
  render();
}

function findingTime(finding) {
  if (typeof finding.time === "number") return finding.time;
  if (typeof finding.index === "number" && state.map && finding.index < state.map.beats.length) {
    return state.map.beats[finding.index];
  }
  return null;
}

// ---------------------------------------------------------------- drawing

const overview = $("overview");
const detail = $("detail");

function fitCanvas(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.max(1, Math.round(canvas.clientWidth * ratio));
  const height = Math.max(1, Math.round(canvas.clientHeight * ratio));
  if (canvas.width !== width || canvas.height !== height) { canvas.width = width; canvas.height = height; }
  return ratio;
}

function drawPeaks(g, width, height, start, secondsPerPixel, color) {
  const peaks = state.peaks;
  if (!peaks) return;
  const bucketSeconds = peaks.bucketFrames / peaks.sampleRate;
  const count = peaks.peaks.length / 2;
  const middle = height / 2;
  const scale = (height / 2 - 2) / 127;
  g.fillStyle = color;
  for (let x = 0; x < width; x++) {
    const t0 = start + x * secondsPerPixel;
    const t1 = t0 + secondsPerPixel;
    let b0 = Math.floor(t0 / bucketSeconds);
    let b1 = Math.max(b0 + 1, Math.ceil(t1 / bucketSeconds));
    if (b1 <= 0 || b0 >= count) continue;
    b0 = Math.max(0, b0);
    b1 = Math.min(count, b1);
    let low = 0, high = 0;
    for (let b = b0; b < b1; b++) {
      low = Math.min(low, peaks.peaks[2 * b]);
      high = Math.max(high, peaks.peaks[2 * b + 1]);
    }
    const top = middle - high * scale;
    g.fillRect(x, top, 1, Math.max(1, (high - low) * scale));
  }
}

function drawOverview() {
  const ratio = fitCanvas(overview);
  const g = overview.getContext("2d");
  const { width, height } = overview;
  g.clearRect(0, 0, width, height);
  if (!state.duration) return;
  const spp = state.duration / width;
  drawPeaks(g, width, height, 0, spp, "#3d5a73");
  // The detail view's window.
  const viewWidth = detail.width * state.view.secondsPerPixel;
  g.fillStyle = "rgba(255,255,255,0.08)";
  g.fillRect(state.view.start / spp, 0, Math.max(2, viewWidth / spp), height);
  // Tempo: a tick where each stretch starts; a tempo that moves beat by beat as a bar along its span.
  g.fillStyle = "#ffb347";
  for (const stretch of state.stretches) {
    g.fillRect(stretch.at / spp, 0, 1 * ratio, 8 * ratio);
    if (stretch.moving) {
      const to = Math.min(stretch.to, state.duration);
      g.fillRect(stretch.at / spp, 0, Math.max(ratio, (to - stretch.at) / spp), 3 * ratio);
    }
  }
  // Findings.
  for (const finding of (state.findings && state.findings.findings) || []) {
    const t = findingTime(finding);
    if (t === null) continue;
    g.fillStyle = finding.severity === "error" ? "#ff6b6b" : "#ffd166";
    g.fillRect(t / spp - ratio, height - 6 * ratio, 2 * ratio, 6 * ratio);
  }
  g.fillStyle = "#ffffff";
  g.fillRect(position() / spp, 0, Math.max(1, ratio), height);
}

function drawDetail() {
  const ratio = fitCanvas(detail);
  const g = detail.getContext("2d");
  const { width, height } = detail;
  const { start, secondsPerPixel: spp } = state.view;
  g.clearRect(0, 0, width, height);
  const lane = Math.round(height * 0.78); // the grid strip below it is where the grid is dragged
  g.fillStyle = "#161a20";
  g.fillRect(0, lane, width, height - lane);
  g.save();
  g.beginPath();
  g.rect(0, 0, width, lane);
  g.clip();
  drawPeaks(g, width, lane, start, spp, "#4a6f8c");
  g.restore();
  if (!state.map) return;
  const shift = state.dragGridMs / 1000;
  const beats = state.map.beats;
  const end = start + width * spp;
  g.font = `${11 * ratio}px ui-monospace, monospace`;
  // Tempo: a line where each stretch starts, and its label, kept in view while the stretch is and cut
  // where the next begins (a tempo followed beat by beat is one stretch: one label, no line per beat).
  g.fillStyle = "#ffb347";
  for (const stretch of state.stretches) {
    const x0 = (stretch.at + shift - start) / spp;
    const x1 = (stretch.to + shift - start) / spp;
    if (x1 < 0 || x0 > width) continue;
    if (x0 >= 0) g.fillRect(x0, 0, ratio, height);
    const left = Math.max(x0, 0);
    g.save();
    g.beginPath();
    g.rect(left, 0, Math.min(x1, width) - left, 16 * ratio);
    g.clip();
    g.fillText(stretchLabel(stretch), left + 4 * ratio, 12 * ratio);
    g.restore();
  }
  // Beats: bars' first beats (known only with beatsPerBar) bold and numbered.
  const stride = Math.max(1, Math.ceil((3 * ratio) / Math.max(1e-9, averageInterval() / spp)));
  for (let i = firstAtOrAfter(beats, start - shift - 1); i < beats.length && beats[i] + shift <= end; i++) {
    const bar = state.bars[i];
    const down = bar && bar.beat === 1;
    if (!down && i % stride !== 0) continue;
    const x = Math.round((beats[i] + shift - start) / spp);
    g.fillStyle = down ? "#ffb347" : "#4fc3f7";
    g.globalAlpha = down ? 1 : 0.75;
    g.fillRect(x, down ? 0 : 16 * ratio, down ? 2 * ratio : ratio, height);
    g.globalAlpha = 1;
    if (down && 40 * ratio < (beats[i] - (beats[i - bar.perBar] ?? -1e9)) / spp) {
      g.fillText(String(bar.bar), x + 3 * ratio, lane + 14 * ratio);
    }
  }
  // Findings.
  for (const finding of (state.findings && state.findings.findings) || []) {
    const t = findingTime(finding);
    if (t === null || t < start || t > end) continue;
    const x = (t - start) / spp;
    g.fillStyle = finding.severity === "error" ? "#ff6b6b" : "#ffd166";
    g.beginPath();
    g.moveTo(x - 6 * ratio, 0);
    g.lineTo(x + 6 * ratio, 0);
    g.lineTo(x, 10 * ratio);
    g.fill();
  }
  // Loop.
  if (state.loop) {
    g.fillStyle = "rgba(255,179,71,0.10)";
    g.fillRect((state.loop.start - start) / spp, 0, (state.loop.end - state.loop.start) / spp, height);
  }
  // Playhead.
  g.fillStyle = "#ffffff";
  g.fillRect(Math.round((position() - start) / spp), 0, 2 * ratio, height);
  g.fillStyle = "#8a919c";
  g.fillText(state.dragGridMs ? `grid ${signed(state.dragGridMs)} ms` : "drag here to move the grid", 6 * ratio,
    height - 6 * ratio);
}

function averageInterval() {
  const beats = state.map ? state.map.beats : [];
  return beats.length > 1 ? (beats[beats.length - 1] - beats[0]) / (beats.length - 1) : 1;
}

function followPlayhead(force = false, center = false) {
  const width = detail.width || 1000;
  const span = width * state.view.secondsPerPixel;
  const p = position();
  if (center) state.view.start = p - span / 2;
  else if (force || p < state.view.start || p > state.view.start + span * 0.85) state.view.start = p - span * 0.25;
  clampView();
}

function clampView() {
  const span = (detail.width || 1000) * state.view.secondsPerPixel;
  state.view.start = Math.max(-span * 0.1, Math.min(state.view.start, state.duration - span * 0.9));
}

function zoom(factor, anchorX) {
  const width = detail.width || 1000;
  const x = anchorX ?? width / 2;
  const t = state.view.start + x * state.view.secondsPerPixel;
  const limit = state.duration / width;
  state.view.secondsPerPixel = Math.min(Math.max(state.view.secondsPerPixel * factor, 0.00005), Math.max(limit, 0.0001));
  state.view.start = t - x * state.view.secondsPerPixel;
  clampView();
  render();
}

// ---------------------------------------------------------------- readout

function clockText(t) {
  const sign = t < 0 ? "-" : "";
  t = Math.abs(t);
  const minutes = Math.floor(t / 60);
  const seconds = (t - minutes * 60).toFixed(3).padStart(6, "0");
  return `${sign}${minutes}:${seconds}`;
}

function signed(x) { return (x >= 0 ? "+" : "") + (Math.round(x * 10) / 10); }

let lastPulseBeat = -1;
function updateReadout() {
  const p = position();
  $("state").textContent = clock.isPlaying ? "▶" : "‖";
  $("play").textContent = clock.isPlaying ? "‖ pause" : "▶ play";
  $("position").textContent = clockText(p);
  $("duration").textContent = clockText(state.duration);
  const beats = state.map ? state.map.beats : [];
  const index = firstAtOrAfter(beats, p + 1e-6) - 1;
  $("beat-readout").textContent = beats.length ? `beat ${Math.max(0, index + 1)}/${beats.length}` : "";
  const bar = index >= 0 ? state.bars[index] : null;
  $("bar-readout").textContent = bar ? `bar ${bar.bar}.${bar.beat}` : "";
  $("bpm-readout").textContent = bar ? `${bpmText(bar.bpm)} BPM` : (beats.length > 1 ? `${(60 / averageInterval()).toFixed(1)} BPM` : "");
  const pulse = $("pulse");
  const lit = index >= 0 && p - beats[index] < 0.12 && clock.isPlaying;
  pulse.className = "pulse" + (lit ? " on" : "") + (lit && bar && bar.beat === 1 ? " down" : "");
  if (lit) lastPulseBeat = index;
  $("nudge-readout").textContent = `nudge ${signed(state.nudgeMs)} ms`;
  $("loop-readout").textContent = state.loop ? `loop ${clockText(state.loop.start)}–${clockText(state.loop.end)}` : "loop off";
  $("music-readout").textContent = state.musicOn ? "music on" : "music muted";
  $("clicks-readout").textContent = state.clicksOn ? "clicks on" : "clicks muted";
  $("dirty-readout").textContent = state.dirty ? "unsaved changes" : "saved";
  if (document.activeElement !== $("meter")) fillMeter();
}

function render() {
  if (clock.isPlaying) followPlayhead();
  drawOverview();
  drawDetail();
  updateReadout();
  state.draws += 1;
}

function frame() {
  if (clock.isPlaying) render();
  requestAnimationFrame(frame);
}

// ---------------------------------------------------------------- editing controls

function segmentAt(t) {
  const segments = ((state.map && state.map.tempo) || []).slice().sort((a, b) => a.time - b.time);
  let found = segments[0] || null;
  for (const segment of segments) if (segment.time <= t) found = segment;
  return found;
}

function fillMeter() {
  // The segment's own meter, or the one its beats count on in (a followed map gives beatsPerBar on
  // the segments that start a bar only).
  const segment = segmentAt(position());
  const beats = state.map ? state.map.beats : [];
  const bar = state.bars[Math.max(0, firstAtOrAfter(beats, position() + 1e-6) - 1)];
  const perBar = (segment && segment.beatsPerBar) || (bar && bar.perBar);
  $("meter").value = perBar ? String(perBar) : "";
}

function fillMetricButtons() {
  const box = $("metric-buttons");
  box.textContent = "";
  const supported = (state.info && state.info.metricRatios) || [];
  const alternatives = (state.map && state.map.analysis && state.map.analysis.alternatives) || [];
  const ratios = [...new Set([...supported, ...alternatives.map((a) => a.ratio)])];
  for (const ratio of ratios) {
    const button = document.createElement("button");
    const alternative = alternatives.find((a) => a.ratio === ratio);
    button.textContent = alternative ? `${ratio} (${alternative.bpm} BPM)` : ratio;
    button.title = alternative ? `analysis score ${alternative.score}` : `switch the metric level ${ratio}`;
    if (!supported.includes(ratio)) {
      button.disabled = true;
      button.title = `${ratio}: not available yet`;
    }
    button.addEventListener("click", () => edit(`op=metric&ratio=${encodeURIComponent(ratio)}`, `metric level ${ratio}`));
    box.append(button);
  }
}

function toggleLoop() {
  if (state.loop) {
    const at = position();
    state.loop = null;
    if (clock.isPlaying) { stopSource(); startSource(at); }
    message("loop off");
  } else {
    const beats = state.map ? state.map.beats : [];
    const p = position();
    let index = Math.max(0, firstAtOrAfter(beats, p + 1e-6) - 1);
    const perBar = (state.bars[index] && state.bars[index].perBar) || 4;
    // Back to the bar's first beat (by the bar count when known, else groups of four from the start).
    if (state.bars[index]) index -= state.bars[index].beat - 1;
    else index -= index % perBar;
    index = Math.max(0, index);
    const startTime = beats[index] ?? 0;
    const endTime = beats[index + perBar] ?? Math.min(state.duration, startTime + perBar * averageInterval());
    if (!(endTime > startTime)) return;
    state.loop = { start: startTime, end: endTime };
    const at = p >= startTime && p < endTime ? p : startTime;
    if (clock.isPlaying) { stopSource(); startSource(at); } else clock.seek(at);
    message(`looping ${clockText(startTime)}–${clockText(endTime)}`);
  }
  render();
}

function tap() {
  if (!clock.isPlaying) { message("tap while it plays"); return; }
  // Unwrapped time for the tempo (it keeps rising through a loop), the heard position for the offset.
  const u = clock.positionAt(heardContextTime());
  const last = state.taps[state.taps.length - 1];
  if (last && (u <= last.u || u - last.u > 2)) state.taps = [];
  state.taps.push({ u, t: wrap(u) });
  if (state.taps.length > 32) state.taps.shift();
  showTaps();
}

/** Tempo (least squares through the taps) and the mean offset of the taps from the nearest beats. */
function tapFit() {
  const taps = state.taps;
  if (taps.length < 4) return null;
  const n = taps.length;
  const meanI = (n - 1) / 2;
  const meanU = taps.reduce((sum, tap) => sum + tap.u, 0) / n;
  let sxy = 0, sxx = 0;
  taps.forEach((tap, i) => { sxy += (i - meanI) * (tap.u - meanU); sxx += (i - meanI) ** 2; });
  const period = sxy / sxx;
  if (!(period > 0)) return null;
  const beats = state.map ? state.map.beats : [];
  let offset = 0;
  for (const { t } of taps) {
    const i = firstAtOrAfter(beats, t);
    const candidates = [beats[i - 1], beats[i]].filter((b) => b !== undefined);
    const nearest = candidates.reduce((a, b) => (Math.abs(b - t) < Math.abs(a - t) ? b : a), candidates[0] ?? t);
    offset += t - nearest;
  }
  // The fitted line at the last tap, where the tapped grid is anchored.
  const anchor = wrap(meanU + (n - 1 - meanI) * period);
  return { bpm: 60 / period, offsetMs: (offset / n) * 1000, anchor };
}

function showTaps() {
  const fit = tapFit();
  $("tap-readout").textContent = fit
    ? `${state.taps.length} taps · ${fit.bpm.toFixed(2)} BPM · taps ${signed(fit.offsetMs)} ms from the beats`
    : `${state.taps.length} tap${state.taps.length === 1 ? "" : "s"} (4 or more)`;
  $("tap-align").disabled = !fit;
  $("tap-tempo").disabled = !fit;
}

// ---------------------------------------------------------------- input

function message(text, kind = "") {
  const box = $("message");
  box.textContent = text;
  box.className = kind;
}

document.addEventListener("keydown", (event) => {
  if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z") { undo(); event.preventDefault(); return; }
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") { save(); event.preventDefault(); return; }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const beats = state.map ? state.map.beats : [];
  let handled = true;
  switch (event.key) {
    case " ": togglePlay(); break;
    case "ArrowLeft": seek(position() - (event.shiftKey ? 30 : 5)); break;
    case "ArrowRight": seek(position() + (event.shiftKey ? 30 : 5)); break;
    case ",": case "<": {
      const i = firstAtOrAfter(beats, position() - 0.02) - 1;
      if (i >= 0) seek(beats[i]);
      break;
    }
    case ".": case ">": {
      const i = firstAtOrAfter(beats, position() + 0.02);
      if (i < beats.length) seek(beats[i]);
      break;
    }
    case "+": case "=": nudge(1); break;
    case "-": nudge(-1); break;
    case "ArrowUp": case "*": nudge(10); break;
    case "ArrowDown": case "_": nudge(-10); break;
    case "l": case "L": toggleLoop(); break;
    case "m": case "M": state.musicOn = !state.musicOn; musicGain.gain.value = state.musicOn ? 1 : 0; render(); break;
    case "c": case "C": state.clicksOn = !state.clicksOn; clickGain.gain.value = state.clicksOn ? 1 : 0; render(); break;
    case "t": case "T": tap(); break;
    case "h": case "H": $("half-beat").click(); break;
    case "s": case "S": save(); break;
    default: handled = false;
  }
  if (handled) event.preventDefault();
});

// A button keeps no focus, so space always means play/pause rather than pressing it again.
document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest("button");
  if (button) button.blur();
});
$("play").addEventListener("click", togglePlay);
$("zoom-in").addEventListener("click", () => zoom(0.5));
$("zoom-out").addEventListener("click", () => zoom(2));
for (const button of document.querySelectorAll("[data-nudge]")) {
  button.addEventListener("click", () => nudge(Number(button.dataset.nudge)));
}
$("meter").addEventListener("change", (event) => {
  const value = event.target.value;
  if (value) edit(`op=meter&beatsPerBar=${value}&at=${position()}`, `meter ${value} beats per bar`);
  event.target.blur();
});
$("half-beat").addEventListener("click", () => edit("op=shiftBeats&fraction=0.5", "every beat half a beat later"));
$("phase-back").addEventListener("click", () => edit(`op=barPhase&beats=-1&at=${position()}`, "bar lines one beat earlier"));
$("phase-forward").addEventListener("click", () => edit(`op=barPhase&beats=1&at=${position()}`, "bar lines one beat later"));
$("tap").addEventListener("click", tap);
$("tap-align").addEventListener("click", () => { const fit = tapFit(); if (fit) nudge(fit.offsetMs); });
$("tap-tempo").addEventListener("click", () => {
  const fit = tapFit();
  if (fit) edit(`op=tempo&bpm=${fit.bpm.toFixed(3)}&anchor=${fit.anchor.toFixed(6)}`, `tempo ${fit.bpm.toFixed(2)} BPM from taps`);
});
$("undo").addEventListener("click", undo);
$("save").addEventListener("click", save);

overview.addEventListener("mousedown", (event) => {
  const rect = overview.getBoundingClientRect();
  seek(((event.clientX - rect.left) / rect.width) * state.duration);
  followPlayhead(true, true);
  render();
});

let drag = null;
detail.addEventListener("mousedown", (event) => {
  const rect = detail.getBoundingClientRect();
  const ratio = detail.width / rect.width;
  const y = (event.clientY - rect.top) * ratio;
  drag = { x: event.clientX, start: state.view.start, grid: y >= detail.height * 0.78, ratio, moved: false };
  detail.style.cursor = drag.grid ? "ew-resize" : "grabbing";
});
window.addEventListener("mousemove", (event) => {
  if (!drag) return;
  const dx = (event.clientX - drag.x) * drag.ratio;
  if (Math.abs(dx) > 2) drag.moved = true;
  if (drag.grid) state.dragGridMs = Math.round(dx * state.view.secondsPerPixel * 10000) / 10;
  else { state.view.start = drag.start - dx * state.view.secondsPerPixel; clampView(); }
  render();
});
window.addEventListener("mouseup", (event) => {
  if (!drag) return;
  const done = drag;
  drag = null;
  detail.style.cursor = "";
  if (done.grid && state.dragGridMs) {
    const ms = state.dragGridMs;
    state.dragGridMs = 0;
    nudge(ms);
  } else if (!done.moved) {
    const rect = detail.getBoundingClientRect();
    seek(state.view.start + (event.clientX - rect.left) * done.ratio * state.view.secondsPerPixel);
  }
  render();
});
detail.addEventListener("wheel", (event) => {
  event.preventDefault();
  const rect = detail.getBoundingClientRect();
  const x = (event.clientX - rect.left) * (detail.width / rect.width);
  if (event.shiftKey) { state.view.start += event.deltaY * state.view.secondsPerPixel; clampView(); render(); }
  else zoom(event.deltaY > 0 ? 1.25 : 0.8, x);
}, { passive: false });
window.addEventListener("resize", render);
window.addEventListener("beforeunload", (event) => { if (state.dirty) { event.preventDefault(); event.returnValue = ""; } });

// ---------------------------------------------------------------- start

async function start() {
  if (!token) {
    message("Open the address that `beatmap studio` printed, with its #token=… part.", "error");
    return;
  }
  try {
    state.info = await jsonOrThrow(await api("/api/info"));
    $("map-name").textContent = state.info.map;
    $("audio-name").textContent = state.info.audio;
    document.title = `${state.info.map} — beatmap studio`;
    const mapResponse = await api("/api/map");
    if (!mapResponse.ok) throw new Error(`cannot load the map (${mapResponse.status})`);
    setMap(await mapResponse.text(), { dirty: false, keepUndo: true });
    state.duration = state.map.audio.duration;
    fillMetricButtons();
    const peaksResponse = api("/api/peaks").then(jsonOrThrow);
    const audioResponse = api("/api/audio").then((r) => {
      if (!r.ok) throw new Error(`cannot load the audio (${r.status})`);
      return r.arrayBuffer();
    });
    state.peaks = await peaksResponse;
    state.duration = Math.max(state.duration, state.peaks.frames / state.peaks.sampleRate);
    state.view.secondsPerPixel = Math.min(8, state.duration) / Math.max(1, fitCanvas(detail) && detail.width);
    render();
    message("decoding the audio…");
    state.buffer = await ctx.decodeAudioData(await audioResponse);
    state.duration = state.buffer.duration;
    state.ready = true;
    message(`ready · ${state.map.beats.length} beats · space to play`);
  } catch (error) {
    message(error.message, "error");
  }
  render();
}

// For the browser test: the clock, the scheduled clicks and the map, read without touching anything.
window.beatmapStudio = {
  get ready() { return !!state.ready; },
  get draws() { return state.draws; },
  clock() {
    return {
      isPlaying: clock.isPlaying, playbackStartTime: clock.playbackStartTime, savedPosition: clock.savedPosition,
      rate: clock.rate, contextTime: ctx.currentTime, position: position(), contextState: ctx.state,
      sampleRate: ctx.sampleRate,
    };
  },
  scheduledClicks() { return scheduledLog.slice(); },
  mapText() { return state.mapText; },
  nudgeMs() { return state.nudgeMs; },
  findings() { return state.findings; },
  lastSave() { return state.lastSave || null; },
  dirty() { return state.dirty; },
  loop() { return state.loop; },
  taps() { return state.taps.map((tap) => tap.t); },
  tapFit() { return tapFit(); },
  lookahead: LOOKAHEAD,
  startMargin: START_MARGIN,
};

requestAnimationFrame(frame);
start();
