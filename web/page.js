// The page around the viewer: the URL's query becomes the viewer's arguments
// (?lab=matmul&version=v5&step=2 -> --lab=matmul --version=v5 --step=2; a key
// without a value, ?presenter, is a flag), a status line shows the download
// and the first trace, and the layout the viewer reports lands in #layout.
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
  setStatus(`${layout.lab} ${layout.version}, step ${layout.step} of ${layout.steps}` +
            (layout.status.error ? ` · ${layout.status.error}` : ''), !!layout.status.error);
}

const args = queryArguments(location.search);
var Module = {
  arguments: args,
  canvas: document.getElementById('canvas'),
  print: (text) => console.log(text),
  printErr: (text) => { console.error(text); if (/error/.test(text)) setStatus(text, true); },
  setStatus: (text) => { if (text) setStatus(text.replace('Downloading data...', 'Downloading warplab')); },
  // Let the status line paint before the first trace runs (it runs before the first frame).
  preRun: [() => {
    Module.addRunDependency('paint');
    setStatus('Tracing ' + (args.length ? args.join(' ') : 'the first version') + ' on the emulator…');
    requestAnimationFrame(() => setTimeout(() => Module.removeRunDependency('paint'), 0));
  }],
  onAbort: (what) => setStatus('warplab stopped: ' + what, true),
};
window.addEventListener('error', (e) => setStatus('warplab stopped: ' + e.message, true));
