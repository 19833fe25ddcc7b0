#!/usr/bin/env python3
"""The page in headless Chromium against the desktop viewer: for a few views
(?lab=..&version=..&step=..), once the page's Worker has sent the view's trace
back, the layout the page reports (every panel's rectangle, the named regions,
the status line) equals what the desktop viewer's --layout-json reports at the
canvas's size. Both draw the same panels with the same Dear ImGui and the same
fonts from the same trace (the page's read back from the Worker's JSON), so any
difference is a defect of the page.

While a trace runs the page must show it pending (its progress line in the
status) and keep drawing: after W (every version traced again at warp width
64), the longest gap between the page's animation frames while matmul v5's
trace is pending stays under MAX_FRAME_GAP (a trace on the page's main thread
froze it for as long as the trace took, 0.5-1.5 s). A page given a bad option must say
so in its status line (the page can fail).
Exit 77 (skipped) where there is no web build or no Chromium.
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from browser import Browser

VIEWS = [("matmul", "v5", 2), ("reduction", "v2", 3), ("transpose", "v2", 0)]
COMPARED = ("panels", "regions", "lab", "version", "step", "steps", "presenter")
SIZE = (1280, 720)
MAX_FRAME_GAP = 0.25  # seconds

LAYOUT = "document.getElementById('layout').textContent"
PENDING = f"(() => {{ const t = {LAYOUT}; return t && JSON.parse(t).status.pending ? t : ''; }})()"
# The view's trace is back and the Worker has nothing left (the metrics table asks for every version's).
SETTLED = f"(() => {{ const t = {LAYOUT}; return t && !JSON.parse(t).status.pending && !traces.running && !traces.queue.length ? t : ''; }})()"
# Frames while the selected version's trace is pending: the longest gap between
# two of them, and the gap that ends with the trace drawn (it holds reading the
# Worker's JSON back, on the main thread).
FRAME_GAPS = f"""new Promise((done) => {{
  const pending = () => {{ const t = {LAYOUT}; return !!t && JSON.parse(t).status.pending; }};
  const start = performance.now();
  let last = start, longest = 0, frames = 0;
  function frame(now) {{
    const gap = now - last;
    last = now;
    if (pending()) {{
      longest = Math.max(longest, gap);
      frames++;
      requestAnimationFrame(frame);
    }} else {{
      done(JSON.stringify({{ longest: longest / 1000, arrival: gap / 1000, frames, seconds: (now - start) / 1000 }}));
    }}
  }}
  requestAnimationFrame(frame);
}})"""


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def desktop_layout(viewer, lab, version, step, size):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([viewer, "--lab", lab, "--version", version, "--step", str(step), "--size", f"{size[0]}x{size[1]}",
                        "--screenshot", os.path.join(d, "shot.png"), "--layout-json", os.path.join(d, "layout.json")],
                       check=True, capture_output=True)
        with open(os.path.join(d, "layout.json")) as f:
            return json.load(f)


def check_responsive(browser, shots):
    """W (warp width 64) on a settled page: every version traced again. While the
    selected one's trace is pending, its progress line shows and frames keep coming.
    Returns problems."""
    for kind in ("keyDown", "keyUp"):
        browser.page("Input.dispatchKeyEvent", type=kind, key="w", code="KeyW", windowsVirtualKeyCode=87,
                     nativeVirtualKeyCode=87, **({"text": "w"} if kind == "keyDown" else {}))
    pending = browser.wait_for(PENDING, 10)
    if not pending:
        return ["W showed no pending trace"]
    problems = []
    layout = json.loads(pending)
    if layout["warp_size"] != 64 or not layout["status"]["text"].startswith("tracing "):
        problems.append(f"after W: warp {layout['warp_size']}, status {layout['status']['text']!r}")
    if shots:
        browser.screenshot(os.path.join(shots, "w64-pending.png"))
    gaps = json.loads(browser.page("Runtime.evaluate", expression=FRAME_GAPS, awaitPromise=True,
                                   returnByValue=True)["result"]["value"])
    if shots:
        browser.screenshot(os.path.join(shots, "w64-traced.png"))
    print(f"     W: {gaps['frames']} frames in {gaps['seconds']:.2f} s while the trace was pending, longest gap "
          f"{gaps['longest']:.3f} s; the frame that drew the trace came {gaps['arrival']:.3f} s after the last")
    if gaps["seconds"] < 2 * MAX_FRAME_GAP:
        problems.append(f"the trace was pending only {gaps['seconds']:.2f} s: too short to tell a frozen page")
    if gaps["longest"] > MAX_FRAME_GAP:
        problems.append(f"the page froze {gaps['longest']:.2f} s while a trace ran")
    return problems


def check_view(args, browser, base, view):
    lab, version, step = view
    name = f"{lab}-{version}-{step}"
    browser.open(f"{base}?lab={lab}&version={version}&step={step}")
    diffs = []
    if not browser.wait_for(PENDING, 60):
        diffs.append("no pending trace shown")
    settled = browser.wait_for(SETTLED, 120)
    if not settled:
        print(f"FAIL {lab} {version} step {step}: no settled layout; status: {browser.evaluate(LAYOUT)!r}")
        return False
    if args.shots:
        browser.screenshot(os.path.join(args.shots, f"{name}.png"))
    web = json.loads(settled)
    width, height = web["size"]
    desk = desktop_layout(args.viewer, lab, version, step, (width, height))
    diffs += [k for k in COMPARED if web.get(k) != desk.get(k)]
    if web["status"]["text"] != desk["status"]["text"]:
        diffs.append("status text")
    if web["lab"] != lab or web["version"] != version or web["step"] != step:
        diffs.append("not the view the URL asked for")
    print(f"{'FAIL' if diffs else 'ok  '} {lab} {version} step {step} at {width}x{height}: "
          f"{len(web['panels'])} panels{', differs in ' + ', '.join(diffs) if diffs else ', as the desktop'}")
    for k in diffs[:3]:
        if k in web:
            print(f"    page:    {json.dumps(web.get(k))[:300]}\n    desktop: {json.dumps(desk.get(k))[:300]}")
    return not diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True, help="the desktop warplab-viewer")
    ap.add_argument("--web-dir", required=True, help="the web build's warplab-web folder")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--shots", help="also write the page's screenshots (pending and settled) here")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.web_dir, "warplab-viewer.wasm")):
        print(f"skipped: no web build ({args.web_dir}); scripts/web.sh --build-only makes one")
        return 77
    if not shutil.which(args.chromium):
        print("skipped: no Chromium (Debian's chromium)")
        return 77
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)
    start = time.time()
    server = serve(args.web_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    browser = Browser(args.chromium, SIZE)
    try:
        failed = sum(not check_view(args, browser, base, view) for view in VIEWS)
        browser.open(f"{base}?lab=matmul&version=v5")
        browser.wait_for(SETTLED, 120)
        problems = check_responsive(browser, args.shots)
        print(f"{'FAIL' if problems else 'ok  '} the page while matmul v5 traces at warp width 64"
              f"{': ' + '; '.join(problems) if problems else ''}")
        failed += bool(problems)
        browser.open(f"{base}?lab=nosuch")
        status = browser.wait_for("(() => { const s = document.getElementById('status'); "
                                  "return s.className === 'error' ? s.textContent : ''; })()", 30) or ""
    finally:
        browser.close()
        server.shutdown()
    bad_ok = "error" in status and "nosuch" in status
    print(f"{'ok  ' if bad_ok else 'FAIL'} ?lab=nosuch: status {status!r}")
    failed += not bad_ok
    print(f"{len(VIEWS) + 1} pages, {time.time() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
