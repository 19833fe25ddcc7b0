// The page's Worker: runs the viewer's traces off the page's main thread, in
// the trace module (warplab-trace.js, web/trace_worker.cpp). The page sends
// one request at a time, {id, request}; the Worker answers {ready} once its
// module has loaded, {id, progress: [blocks done, blocks]} while a trace runs,
// {id, reply} when it is done (the JSON's UTF-8 bytes, transferred, not
// copied: megabytes), and {id, stopped} if the module aborted (out of
// memory): the page then starts another Worker.
'use strict';
let running = -1;
var Module = {
  onTraceProgress: (done, blocks) => postMessage({ id: running, progress: [done, blocks] }),
  onRuntimeInitialized: () => postMessage({ ready: true }),
  onAbort: (what) => postMessage({ id: running, stopped: String(what) }),
  print: (text) => console.log(text),
  printErr: (text) => console.error(text),
};
onmessage = (e) => {
  running = e.data.id;
  const at = Module.ccall('warplab_trace', 'number', ['string'], [e.data.request]);
  const reply = Module.HEAPU8.slice(at, Module.HEAPU8.indexOf(0, at));
  postMessage({ id: running, reply }, [reply.buffer]);
};
importScripts('warplab-trace.js');
