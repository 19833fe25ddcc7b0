// The page around the viewer: the URL's query becomes the viewer's arguments
// (?lab=matmul&version=v5&step=2 -> --lab=matmul --version=v5 --step=2; a key
// without a value, ?presenter, is a flag), a status line shows the download
// and each trace's progress, the layout the viewer reports lands in #layout,
// and the viewer's traces run in a Worker (trace_worker.js), one at a time,
// so that the page answers while they run.
'use strict';

const statusLine = document.getElementById('status');

function setStatus(text, isError) {
  statusLine.textContent = text;
  statusLine.className = isError ? 'error' : '';
}

function queryArguments(search) {
  const args = [];
  for (const [key, value] of new URLSearchParams(search)) args.push(value === '' ? `--${key}` : `--${key}=${value}`);
  return args;
}

// Called by the viewer (web/viewer_main.cpp) whenever its layout document changes.
function warplabLayout(text) {
  document.getElementById('layout').textContent = text;
  const layout = JSON.parse(text);
  if (layout.status.pending) {
    setStatus(layout.status.text, false);  // "tracing matmul v5 on the emulator · blocks 12 of 64 · 0.8 s"
    return;
  }
  setStatus(`${layout.lab} ${layout.version}, step ${layout.step} of ${layout.steps}` +
            (layout.status.error ? ` · ${layout.status.error}` : ''), !!layout.status.error);
}

// ---- the Worker and its queue: requests wait here, the selected version's first.
// A request is for a whole trace (a version on screen) or its totals alone (totals: the metrics panel's other rows).
// Counted for tests/web: replies read back (arrived: all; wholeArrived, totalsArrived), the longest
// read-back of each kind in ms (the page's main thread is busy meanwhile), the largest totals reply in bytes.
const traces = { worker: null, ready: false, queue: [], running: null,
                 arrived: 0, wholeArrived: 0, totalsArrived: 0, readBack: 0, totalsReadBack: 0, totalsBytes: 0 };

// A reply's UTF-8 bytes to the viewer, NUL-ended in its memory (megabytes: too big for ccall's stack copy).
function traceArrived(trace, bytes) {
  const start = performance.now();
  const at = Module._malloc(bytes.length + 1);
  Module.HEAPU8.set(bytes, at);
  Module.HEAPU8[at + bytes.length] = 0;
  try { Module._warplab_trace_arrived(trace.id, at); } finally { Module._free(at); }
  const took = performance.now() - start;
  traces.arrived++;
  if (trace.totals) {
    traces.totalsArrived++;
    traces.totalsReadBack = Math.max(traces.totalsReadBack, took);
    traces.totalsBytes = Math.max(traces.totalsBytes, bytes.length);
  } else {
    traces.wholeArrived++;
    traces.readBack = Math.max(traces.readBack, took);
  }
}

function onWorkerMessage(e) {
  const m = e.data;
  if (m.ready) {
    traces.ready = true;
  } else if (m.progress) {
    Module._warplab_trace_progress(m.id, m.progress[0], m.progress[1]);
    return;
  } else if ('reply' in m) {
    const trace = traces.running;
    traces.running = null;
    traceArrived(trace, m.reply);
  } else if ('stopped' in m) {  // the module aborted: that trace failed; a fresh Worker runs the rest
    const trace = traces.running;
    traces.running = null;
    const reply = { error: `the trace stopped: ${m.stopped}`, fault: false, fault_file: '', fault_line: 0 };
    if (trace) traceArrived(trace, new TextEncoder().encode(JSON.stringify(reply)));
    startWorker();
  }
  nextTrace();
}

function startWorker() {
  if (traces.worker) traces.worker.terminate();
  traces.ready = false;
  traces.worker = new Worker('trace_worker.js');
  traces.worker.onmessage = onWorkerMessage;
  traces.worker.onerror = (e) => setStatus('the trace Worker stopped: ' + e.message, true);
}

function nextTrace() {
  if (!traces.ready || traces.running || !traces.queue.length) return;
  traces.running = traces.queue.shift();
  traces.worker.postMessage(traces.running);
}

// Called by the viewer: App::start_trace.
function warplabStartTrace(id, request, totals) {
  traces.queue.push({ id, request, totals });
  nextTrace();
}

// Called by the viewer when the selected version's trace waits behind others.
function warplabTraceFirst(id) {
  const at = traces.queue.findIndex((t) => t.id === id);
  if (at > 0) traces.queue.unshift(traces.queue.splice(at, 1)[0]);
}

startWorker();  // its module loads while the viewer's does

const args = queryArguments(location.search);
var Module = {
  arguments: args,
  canvas: document.getElementById('canvas'),
  print: (text) => console.log(text),
  printErr: (text) => { console.error(text); if (/error/.test(text)) setStatus(text, true); },
  setStatus: (text) => { if (text) setStatus(text.replace('Downloading data...', 'Downloading warplab')); },
  onAbort: (what) => setStatus('warplab stopped: ' + what, true),
};
window.addEventListener('error', (e) => setStatus('warplab stopped: ' + e.message, true));
