#!/usr/bin/env python3
"""The page in headless Chromium against the desktop viewer: for a few views
(?lab=..&version=..&step=..), the layout the page reports (every panel's
rectangle, the named regions, the status line) equals what the desktop viewer's
--layout-json reports at the canvas's size. Both draw the same panels with the
same Dear ImGui and the same fonts, so any difference is a defect of the page.

A page given a bad option must say so in its status line (the page can fail).
Exit 77 (skipped) where there is no web build or no Chromium.
"""
import argparse
import functools
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

VIEWS = [("matmul", "v5", 2), ("reduction", "v2", 3), ("transpose", "v2", 0)]
COMPARED = ("panels", "regions", "lab", "version", "step", "steps", "presenter")


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=directory)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def page_dom(chromium, url, size):
    """The page's DOM once the viewer has drawn (Chromium waits out the virtual time budget)."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
               "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--hide-scrollbars",
               f"--window-size={size[0]},{size[1]}", "--virtual-time-budget=60000", "--run-all-compositor-stages-before-draw",
               "--dump-dom", url]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout


def page_layout(dom):
    m = re.search(r'<script type="application/json" id="layout">(.*?)</script>', dom, re.S)
    return json.loads(m.group(1)) if m and m.group(1).strip() else None


def page_status(dom):
    m = re.search(r'<span id="status"[^>]*>(.*?)</span>', dom, re.S)
    return html.unescape(m.group(1)) if m else ""


def desktop_layout(viewer, lab, version, step, size):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([viewer, "--lab", lab, "--version", version, "--step", str(step), "--size", f"{size[0]}x{size[1]}",
                        "--screenshot", os.path.join(d, "shot.png"), "--layout-json", os.path.join(d, "layout.json")],
                       check=True, capture_output=True)
        with open(os.path.join(d, "layout.json")) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--viewer", required=True, help="the desktop warplab-viewer")
    ap.add_argument("--web-dir", required=True, help="the web build's warplab-web folder")
    ap.add_argument("--chromium", default="chromium")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.web_dir, "warplab-viewer.wasm")):
        print(f"skipped: no web build ({args.web_dir}); scripts/web.sh --build-only makes one")
        return 77
    if not shutil.which(args.chromium):
        print("skipped: no Chromium (Debian's chromium)")
        return 77
    start = time.time()
    server = serve(args.web_dir)
    base = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    failed = 0
    for lab, version, step in VIEWS:
        dom = page_dom(args.chromium, f"{base}?lab={lab}&version={version}&step={step}", (1280, 720))
        web = page_layout(dom)
        if not web:
            print(f"FAIL {lab} {version} step {step}: the page reported no layout; status: {page_status(dom)!r}")
            failed += 1
            continue
        width, height = web["size"]
        desk = desktop_layout(args.viewer, lab, version, step, (width, height))
        diffs = [k for k in COMPARED if web.get(k) != desk.get(k)]
        if web["status"]["text"] != desk["status"]["text"]:
            diffs.append("status text")
        if web["lab"] != lab or web["version"] != version or web["step"] != step:
            diffs.append("not the view the URL asked for")
        print(f"{'FAIL' if diffs else 'ok  '} {lab} {version} step {step} at {width}x{height}: "
              f"{len(web['panels'])} panels{', differs in ' + ', '.join(diffs) if diffs else ', as the desktop'}")
        for k in diffs[:3]:
            if k in web:
                print(f"    page:    {json.dumps(web.get(k))[:300]}\n    desktop: {json.dumps(desk.get(k))[:300]}")
        failed += bool(diffs)
    dom = page_dom(args.chromium, f"{base}?lab=nosuch", (1280, 720))
    status = page_status(dom)
    bad_ok = "error" in status and "nosuch" in status
    print(f"{'ok  ' if bad_ok else 'FAIL'} ?lab=nosuch: status {status!r}")
    failed += not bad_ok
    server.shutdown()
    print(f"{len(VIEWS) + 1} pages, {time.time() - start:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
