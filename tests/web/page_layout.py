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
froze it for as long as the trace took, 0.5-1.5 s); the gaps as it arrives and is
drawn (its read-back, then freeing what was parsed) are reported. A page given a bad option must say
so in its status line (the page can fail).

Once a view is drawn, the metrics panel's rows of the other versions keep
arriving from the Worker; they ask for the totals alone, so the page reads
back one whole trace a view (the selected version's) and only a few hundred
bytes for every other version: counted, and the longest gap between frames
meanwhile reported. A lesson in the URL (?lesson=reduction) plays as on the
desktop, and PageDown moves to its next slide.
Exit 77 (skipped) where there is no web build or no Chromium.
"""
import argparse
import functools
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from browser import Browser
import prerequisites

VIEWS = [("matmul", "v5", 2), ("reduction", "v2", 3), ("transpose", "v2", 0)]
COMPARED = ("panels", "regions", "lab", "version", "step", "steps", "presenter")
SIZE = (1600, 1000)  # a window whose page (about 1600x808) gets the full desk layout, metrics panel included
MAX_FRAME_GAP = 0.4  # seconds: a frame takes 0.03-0.27 s in headless Chromium's software WebGL here; W's trace 0.6-0.9 s

LAYOUT = "document.getElementById('layout').textContent"
PENDING = f"(() => {{ const t = {LAYOUT}; return t && JSON.parse(t).status.pending ? t : ''; }})()"
# The view's trace is back (others, for the metrics table's rows, may still run: they change no layout).
SETTLED = f"(() => {{ const t = {LAYOUT}; return t && !JSON.parse(t).status.pending ? t : ''; }})()"
# Watches the page's frames from now until the selected version's trace has
# been pending and is drawn: the longest gap between two frames while it was
# pending, apart from gaps in which a trace arrived (reading the Worker's JSON
# back runs on the main thread: the other versions' traces, for the metrics
# table, arrive meanwhile), and the longest of those; and the longest gap from
# the last pending frame to the third frame after (the selected trace's own
# read-back and what follows it). Left in window.frameGaps.
WATCH_FRAMES = f"""(() => {{
  const pending = () => {{ const t = {LAYOUT}; return !!t && JSON.parse(t).status.pending; }};
  let last = performance.now(), longest = 0, arrival = 0, frames = 0, since = 0, arrived = traces.arrived;
  let until = 0, drawn = 0;
  window.frameGaps = null;
  function frame(now) {{
    const gap = now - last, readBack = traces.arrived !== arrived;
    last = now;
    arrived = traces.arrived;
    if (readBack) arrival = Math.max(arrival, gap);
    if (until) {{
      drawn = Math.max(drawn, gap);
      if (--until === 0) {{
        window.frameGaps = JSON.stringify({{ longest: longest / 1000, arrival: arrival / 1000, drawn: drawn / 1000, frames,
                                             seconds: (since.end - since.start) / 1000 }});
        return;
      }}
    }} else if (pending()) {{
      if (!since) since = {{ start: now }};
      else if (!readBack) longest = Math.max(longest, gap);
      frames++;
    }} else if (since) {{
      since.end = now;
      drawn = gap;
      until = 3;
    }}
    requestAnimationFrame(frame);
  }}
  requestAnimationFrame(frame);
}})()"""


# From now until the Worker is idle (every version's row has arrived): the
# longest gap between the page's frames. Left in window.backgroundGaps.
WATCH_BACKGROUND = """(() => {
  let last = performance.now(), longest = 0, frames = 0;
  const start = last;
  window.backgroundGaps = null;
  function frame(now) {
    longest = Math.max(longest, now - last);
    last = now;
    frames++;
    if (!traces.running && !traces.queue.length) {
      window.backgroundGaps = JSON.stringify({ longest: longest / 1000, frames, seconds: (now - start) / 1000 });
      return;
    }
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
})()"""
# What the page read back from its Worker so far (page.js's traces).
# (A page without totals replies counts every arrival as whole.)
READ_BACK = ("JSON.stringify({ whole: traces.wholeArrived ?? traces.arrived, totals: traces.totalsArrived ?? 0, "
             "readBack: traces.readBack, totalsReadBack: traces.totalsReadBack ?? 0, totalsBytes: traces.totalsBytes ?? 0 })")
MAX_TOTALS_BYTES = 2000  # a totals reply: five counters' JSON, about 400 bytes; a whole trace's is megabytes


def check_background(browser, name, whole=1):
    """After the view is drawn (WATCH_BACKGROUND started then): every other version's row
    arrives as totals alone; `whole` traces read back so far, the views'. Returns problems."""
    gaps = browser.wait_for("window.backgroundGaps", 120)
    if not gaps:
        return ["the other versions' rows never all arrived"]
    gaps, read = json.loads(gaps), json.loads(browser.evaluate(READ_BACK))
    print(f"     {name}, the other versions' rows arriving: {gaps['frames']} frames in {gaps['seconds']:.2f} s, longest gap "
          f"{gaps['longest']:.3f} s; read back: {read['whole']} whole trace(s), at most {read['readBack'] / 1000:.3f} s, "
          f"{read['totals']} totals replies, at most {read['totalsReadBack'] / 1000:.4f} s and {read['totalsBytes']} bytes")
    problems = []
    if read["whole"] != whole:
        problems.append(f"{read['whole']} whole traces read back, not {whole}: only the selected version's should be")
    if read["totals"] < 2:
        problems.append(f"{read['totals']} totals replies: the metrics panel asks for every other version's")
    if read["totalsBytes"] > MAX_TOTALS_BYTES:
        problems.append(f"a totals reply of {read['totalsBytes']} bytes: more than the totals")
    return problems


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def desktop_layout(viewer, options, size):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([viewer, *options, "--size", f"{size[0]}x{size[1]}",
                        "--screenshot", os.path.join(d, "shot.png"), "--layout-json", os.path.join(d, "layout.json")],
                       check=True, capture_output=True)
        with open(os.path.join(d, "layout.json")) as f:
            return json.load(f)


def frames_pass(browser):
    """Returns once the page has drawn a frame or two (its main loop runs on animation frames)."""
    browser.page("Runtime.evaluate", awaitPromise=True,
                 expression="new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done))))")


def press(browser, key, code):
    for kind in ("keyDown", "keyUp"):
        browser.page("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=code_of(code),
                     nativeVirtualKeyCode=code_of(code), **({"text": key} if kind == "keyDown" and len(key) == 1 else {}))
        frames_pass(browser)  # Dear ImGui 1.86 sees a key pressed and released within one frame as never pressed


def code_of(code):
    return {"KeyW": 87, "ArrowDown": 40, "PageDown": 34}[code]


def check_responsive(browser, shots):
    """W (warp width 64) on a settled page: every version traced again. While the
    selected one's trace is pending, its progress line shows and frames keep coming.
    Returns problems."""
    browser.evaluate(WATCH_FRAMES)
    press(browser, "w", "KeyW")
    gaps = browser.wait_for("window.frameGaps", 60)
    if not gaps:
        return ["W showed no pending trace that then arrived"]
    browser.evaluate(WATCH_BACKGROUND)
    problems = check_background(browser, "after W", whole=2)
    gaps = json.loads(gaps)
    layout = json.loads(browser.evaluate(LAYOUT))
    if layout["warp_size"] != 64:
        problems.append(f"after W: warp {layout['warp_size']}")
    print(f"     W: {gaps['frames']} frames in {gaps['seconds']:.2f} s while the trace was pending, longest gap "
          f"{gaps['longest']:.3f} s; longest gap holding a trace's arrival {gaps['arrival']:.3f} s; once it arrived, "
          f"longest gap of the next frames {gaps['drawn']:.3f} s")
    # A trace on the main thread gives one frame and a gap as long as the trace;
    # on an idle machine W's trace may end within MAX_FRAME_GAP, so the frames
    # drawn while it was pending tell, not how long it was pending.
    if gaps["frames"] < 3:
        problems.append(f"{gaps['frames']} frame(s) in the {gaps['seconds']:.2f} s the trace was pending: too few to tell a live page")
    if gaps["longest"] > MAX_FRAME_GAP:
        problems.append(f"the page froze {gaps['longest']:.2f} s while a trace ran")
    print(f"     reading a trace back from the Worker's JSON took at most {browser.evaluate('traces.readBack') / 1000:.3f} s "
          f"on the page's main thread ({browser.evaluate('traces.arrived')} traces so far)")
    if shots:  # the next version at width 64 waits behind, or is in, the Worker
        press(browser, "ArrowDown", "ArrowDown")
        pending = browser.wait_for(PENDING, 10)
        browser.screenshot(os.path.join(shots, "w64-next-pending.png"))
        print(f"     after W and the down arrow: {json.loads(pending)['status']['text'] if pending else 'not pending'}")
    return problems


def settled_layout(browser, quiet=0.5, timeout=30):
    """The layout once it has not changed for `quiet` seconds: the panels' heights follow
    what the frame before drew (the step controls had no steps while the trace was pending)."""
    last, since, end = None, time.time(), time.time() + timeout
    while time.time() < end:
        text = browser.evaluate(SETTLED)
        if text != last:
            last, since = text, time.time()
        elif text and time.time() - since >= quiet:
            return text
        time.sleep(0.05)
    return None


def check_view(args, browser, base, view):
    lab, version, step = view
    name = f"{lab}-{version}-{step}"
    browser.open(f"{base}?lab={lab}&version={version}&step={step}")
    diffs = []
    drawn = browser.wait_for(SETTLED, 120)
    if drawn:
        browser.evaluate(WATCH_BACKGROUND)
    settled = drawn and settled_layout(browser)
    if not settled:
        print(f"FAIL {lab} {version} step {step}: no settled layout; status: {browser.evaluate(LAYOUT)!r}")
        return False
    if args.shots:
        browser.screenshot(os.path.join(args.shots, f"{name}.png"))
    diffs += check_background(browser, name)
    web = json.loads(settled)
    width, height = web["size"]
    desk = desktop_layout(args.viewer, ["--lab", lab, "--version", version, "--step", str(step)], (width, height))
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


def check_lesson(args, browser, base):
    """?lesson=reduction&slide=3: the page plays the shipped lesson from that slide as the desktop
    does (the same layout, lesson bar included), and PageDown shows the next slide (v1's step 3, then v2's)."""
    browser.open(f"{base}?lesson=reduction&slide=3")
    settled = browser.wait_for(SETTLED, 120) and settled_layout(browser)
    if not settled:
        return [f"no settled layout; status: {browser.evaluate(LAYOUT)!r}"]
    web = json.loads(settled)
    if args.shots:
        browser.screenshot(os.path.join(args.shots, "lesson-reduction-3.png"))
    desk = desktop_layout(args.viewer, ["--lesson", "reduction", "--slide", "3"], web["size"])
    problems = [f"differs from the desktop in {k}" for k in COMPARED + ("lesson",) if web.get(k) != desk.get(k)]
    if web["regions"] != desk["regions"]:
        names = sorted(set(web["regions"]) | set(desk["regions"]))
        problems += [f"region {n}: page {web['regions'].get(n)}, desktop {desk['regions'].get(n)}" for n in names
                     if web["regions"].get(n) != desk["regions"].get(n)][:3]
    if (web["lesson"] or {}).get("slide") != 3 or web["version"] != "v1" or "lesson" not in web["panels"]:
        problems.append(f"not slide 3 of the lesson (v1, a lesson bar): {web['lesson']}, {web['version']}")
    press(browser, "PageDown", "PageDown")
    moved = browser.wait_for(f"(() => {{ const t = {LAYOUT}; const l = t && JSON.parse(t); "
                             "return l && l.lesson && l.lesson.slide === 4 && !l.status.pending ? t : ''; })()", 60)
    if not moved or json.loads(moved)["version"] != "v2":
        problems.append(f"PageDown did not show slide 4 (v2): {moved and json.loads(moved)['lesson']}")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True, help="the desktop warplab-viewer")
    ap.add_argument("--web-dir", required=True, help="the web build's warplab-web folder")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--shots", help="also write the page's screenshots (pending and settled) here")
    args = ap.parse_args()
    skipped = prerequisites.skip(prerequisites.no_web_build(os.path.join(args.web_dir, "warplab-viewer.wasm")),
                                 prerequisites.no_program(args.chromium, "Chromium (Debian's chromium)"))
    if skipped:
        return skipped
    if args.shots:
        os.makedirs(args.shots, exist_ok=True)
    start = time.time()
    server = serve(args.web_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    browser = Browser(args.chromium, SIZE)
    try:
        failed = 0
        for i, view in enumerate(VIEWS):
            failed += not check_view(args, browser, base, view)
            if i == 0:  # matmul v5, drawn: W traces it again
                problems = check_responsive(browser, args.shots)
                print(f"{'FAIL' if problems else 'ok  '} the page while matmul v5 traces at warp width 64"
                      f"{': ' + '; '.join(problems) if problems else ''}")
                failed += bool(problems)
        problems = check_lesson(args, browser, base)
        print(f"{'FAIL' if problems else 'ok  '} ?lesson=reduction&slide=3, then PageDown{': ' + '; '.join(problems) if problems else ''}")
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
    print(f"{len(VIEWS) + 2} pages, {time.time() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
