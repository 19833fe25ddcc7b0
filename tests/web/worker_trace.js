// The page's trace module (warplab-trace.js, which the page's Worker loads)
// under node: each argument after the module's path is one request as the
// viewer sends it (JSON); each reply is printed on a line of its own, as the
// Worker would post it, after a line "progress <reports> <last done>/<last blocks>"
// counting what the module reported while it ran.
'use strict';
const fs = require('fs');
const path = require('path');
const [modulePath, ...requests] = process.argv.slice(2);
let progress = [];
const Module = {
  // Given, not fetched: node's fetch takes no file paths, and emscripten 3.1.6 would try it.
  wasmBinary: fs.readFileSync(path.resolve(modulePath).replace(/\.js$/, '.wasm')),
  onTraceProgress: (done, blocks) => progress.push([done, blocks]),
  onRuntimeInitialized: () => {
    for (const request of requests) {
      progress = [];
      const reply = Module.ccall('warplab_trace', 'string', ['string'], [request]);
      const last = progress[progress.length - 1] || [-1, -1];
      process.stdout.write(`progress ${progress.length} ${last[0]}/${last[1]}\n${reply}\n`);
    }
  },
};
// The module's script as the Worker's importScripts runs it: its `var Module` takes ours.
const script = fs.readFileSync(path.resolve(modulePath), 'utf8');
new Function('Module', 'require', '__dirname', script)(Module, require, path.dirname(path.resolve(modulePath)));
