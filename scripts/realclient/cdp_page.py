#!/usr/bin/env python3
"""Drive the server's web page (`/`) in headless Chromium over the DevTools protocol.

Loads the page, reads its text, takes a screenshot, then (with --token) types the admin token,
presses the first "Start a break now" button and waits until the page has reloaded with a break
named admin-... in its tables. Prints one JSON object on standard output:

  {"title", "text", "csp_violations", "status", "breaks_before", "breaks_after", "console", "shots"}

usage: cdp_page.py URL --outdir DIR [--token T] [--timeout S]
needs: apt-get install -y chromium ; pip install websocket-client
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket  # websocket-client

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("--outdir", required=True)
parser.add_argument("--token")
parser.add_argument("--timeout", type=float, default=60)
parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
options = parser.parse_args()
os.makedirs(options.outdir, exist_ok=True)


class Page:
    """One Chromium tab, spoken to over its DevTools WebSocket."""

    def __init__(self, socket):
        self.socket = socket
        self.next_id = 0
        self.console = []

    def call(self, method, **params):
        self.next_id += 1
        wanted = self.next_id
        self.socket.send(json.dumps({"id": wanted, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message.get("result", {})
            event = message.get("method")
            if event == "Runtime.consoleAPICalled":
                args = message["params"]["args"]
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif event == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(message["params"]["exceptionDetails"])[:400])
            elif event == "Log.entryAdded":
                entry = message["params"]["entry"]
                self.console.append("log.%s: %s" % (entry.get("level"), entry.get("text", "")[:400]))

    def value(self, expression):
        """The value of an expression, or None while the page is between documents."""
        try:
            answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        except RuntimeError:
            return None
        if "exceptionDetails" in answer:
            return None
        return answer.get("result", {}).get("value")

    def wait(self, expression, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.value(expression):
                return True
            time.sleep(0.2)
        return False

    def screenshot(self, name):
        path = os.path.join(options.outdir, name)
        with open(path, "wb") as out:
            out.write(base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"]))
        return path


BREAK_IDS = "Array.from(document.querySelectorAll('td.break-id')).map(e => e.textContent)"
profile = tempfile.mkdtemp(prefix="cdp-page-")
browser = subprocess.Popen(
    [options.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
     "--remote-allow-origins=*", "--no-first-run", "--no-default-browser-check", "--user-data-dir=" + profile,
     "--window-size=1280,1400", "about:blank"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
result = {"shots": []}
try:
    port_file = os.path.join(profile, "DevToolsActivePort")
    for _ in range(400):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        time.sleep(0.05)
    port = int(open(port_file).read().split()[0])
    tabs = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
    tab = next(t for t in tabs if t["type"] == "page")
    page = Page(websocket.create_connection(tab["webSocketDebuggerUrl"], suppress_origin=True, timeout=30))
    page.call("Runtime.enable")
    page.call("Page.enable")
    page.call("Log.enable")
    page.call("Page.navigate", url=options.url)
    loaded = page.wait("document.readyState === 'complete' && !!document.querySelector('main')", options.timeout)
    result["loaded"] = loaded
    result["title"] = page.value("document.title")
    result["text"] = page.value("document.body.innerText")
    result["breaks_before"] = page.value(BREAK_IDS)
    result["svg_count"] = page.value("document.querySelectorAll('figure.timeline svg').length")
    result["shots"].append(page.screenshot("page.png"))
    if options.token is not None and loaded:
        # Typed into the field as a person would (input events), then the button pressed.
        page.value("document.getElementById('token').focus()")
        page.call("Input.insertText", text=options.token)
        page.value("document.getElementById('token').blur()")
        page.value("document.querySelector('button.start-break').click()")
        # The status line says "started" only on the load right after the click (the page reloads
        # itself every few seconds): the break and the status are read in one evaluation.
        started = ("(() => { const s = document.getElementById('status');"
                   " return " + BREAK_IDS + ".some(i => i.startsWith('admin-'))"
                   " && s && s.textContent.includes('started') ? s.textContent : null; })()")
        status = None
        deadline = time.time() + options.timeout
        while status is None and time.time() < deadline:
            status = page.value(started)
            if status is None:
                time.sleep(0.1)
        result["started"] = any(i.startswith("admin-") for i in (page.value(BREAK_IDS) or []))
        result["status"] = status if status is not None else page.value("document.getElementById('status').textContent")
        result["breaks_after"] = page.value(BREAK_IDS)
        result["text_after"] = page.value("document.body.innerText")
        result["shots"].append(page.screenshot("after-start.png"))
    result["console"] = page.console[-40:]
finally:
    browser.terminate()
    try:
        browser.wait(5)
    except subprocess.TimeoutExpired:
        browser.kill()
    shutil.rmtree(profile, ignore_errors=True)
json.dump(result, sys.stdout)
print()
