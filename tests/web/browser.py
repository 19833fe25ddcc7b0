"""Headless Chromium driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ending in NUL, written to its fd 3 and
read from its fd 4). Unlike --dump-dom's virtual time, which runs ahead while
a Worker computes, the page runs in real time and is read when it is ready."""
import base64
import json
import os
import subprocess
import tempfile
import time


class Browser:
    def __init__(self, chromium, size):
        self.profile = tempfile.TemporaryDirectory()
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium wants them as its fds 3 and 4: moved above those first, so neither overwrites the other.
        high_r, high_w = os.dup(to_chrome_r) + 100, os.dup(from_chrome_w) + 100
        os.dup2(to_chrome_r, high_r)
        os.dup2(from_chrome_w, high_w)

        def child_fds():
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        cmd = [chromium, "--headless", "--no-sandbox", "--disable-dev-shm-usage", f"--user-data-dir={self.profile.name}",
               "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--hide-scrollbars",
               f"--window-size={size[0]},{size[1]}", "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(cmd, preexec_fn=child_fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (to_chrome_r, from_chrome_w, high_r, high_w):
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium closed the pipe during {method}")
                self.buffer += chunk
            text, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(text)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def page(self, method, **params):
        return self.call(method, self.session, **params)

    def open(self, url):
        self.page("Page.navigate", url=url)

    def evaluate(self, expression):
        return self.page("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression, timeout):
        """The expression's value once it is truthy, or None after `timeout` seconds."""
        end = time.time() + timeout
        while time.time() < end:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        return None

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.page("Page.captureScreenshot", format="png")["data"]))

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        self.profile.cleanup()
