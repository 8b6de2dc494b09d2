#!/usr/bin/env python3
"""Drives the control page's musical time and modulators in headless Chromium, for
ControlPageTimeTests (helpers from control_page.py). Scenarios:

  tempo      `oscsend … /tempo f 93` with the page open: when the page's tempo read 93 (a
             MutationObserver's performance.now(), set on time.monotonic()); then /status asked
             over UDP between two readings of the page's beat indicator (its data-beat), five
             times over two seconds: the beat the page drew at the moment paramd answered.
  musical    the page's curve set to linear and its duration to `--duration` (musical), a real
             click at --fraction of the volume track: the OSC the page sent (its WebSocket), the
             thumb --read-seconds later and again --hold-seconds after that.
  modulator  with `--param` modulated before the page opened: the band's and the marker's
             geometry, the thumb at each animation frame for a second beside the values the page
             received (each stamped), a screenshot (--screenshot); then a modulator set from the
             page's panel on volume (triangle, 4n, depth 0.3, up), a bad rate typed, and Stop.
  timecode   with LTC playing into paramd: the header's timecode, read ten times over two seconds
             beside /status's tc asked over UDP between two readings, and whether it runs.
Results go to --out as JSON; progress lines to stdout.
"""
import argparse
import socket
import os
import subprocess
import sys
import time

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from osc_codec import osc_decode, osc_message  # noqa: E402  the project's one OSC codec
from control_page_browser import READ_THUMB, TOASTS, quiet_window, calibrate, click_at, next_frames, run, set_viewport, wait_live, wait_until

# Before the page's own script: what every WebSocket sends and receives, each stamped with
# performance.now() (a listener added first runs before the page's own handler).
RECORD_STAMPED = """
window.__sent = []; window.__received = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...a) {
    super(...a);
    this.addEventListener('message', (e) => { if (e.data instanceof ArrayBuffer) window.__received.push([performance.now(), e.data]); });
  }
  send(data) {
    if (data instanceof ArrayBuffer) window.__sent.push([performance.now(), data]);
    return super.send(data);
  }
};
"""

DECODED = """
const OSC = window.paramd.OSC;
return window[arguments[0]].flatMap(([t, d]) => OSC.decode(d).map((m) => [t, m.address, m.args]));
"""


class OSCClient:
    """A UDP socket of its own: asks paramd and reads its reply."""
    def __init__(self, port):
        self.port = port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(2)

    def ask(self, address, *args, reply=None):
        self.sock.sendto(osc_message(address, *args), ("127.0.0.1", self.port))
        while True:
            got = osc_decode(self.sock.recv(65536))
            if reply is None or got[0] == reply:
                return got


READ_BEAT = """
const b = document.getElementById('beat');
return {beat: b.dataset.beat === undefined ? null : Number(b.dataset.beat), inBar: Number(b.dataset.beatInBar),
        pips: b.children.length, bpm: document.getElementById('tempo-bpm').textContent};
"""


def tempo(driver, args):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_STAMPED})
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    wait_until(driver, lambda d: d.execute_script(READ_BEAT)["beat"] is not None)
    out = {"before": driver.execute_script(READ_BEAT)}
    offset, error = calibrate(driver, time.monotonic)
    driver.execute_script("""
        const box = document.getElementById('tempo');
        window.__tempo = [];
        new MutationObserver(() => window.__tempo.push([performance.now(), Number(box.dataset.bpm),
                                                          document.getElementById('tempo-bpm').textContent]))
          .observe(box, {attributes: true, attributeFilter: ['data-bpm']});""")
    sent = time.monotonic()
    subprocess.run(["oscsend", "localhost", str(args.osc_port), "/tempo", "f", "93"], check=True)
    shown = wait_until(driver, lambda d: next((c for c in d.execute_script("return window.__tempo") if c[1] == 93), None), 3)
    out["calibrationError"] = error
    out["shownAfter"] = None if shown is None else shown[0] / 1000 + offset - sent
    out["shownText"] = None if shown is None else shown[2]
    # The page's anchor after the change: its /status reply (asked at most every 500 ms).
    if shown is not None:
        wait_until(driver, lambda d: any(t > shown[0] and a == "/status" for t, a, _ in d.execute_script(DECODED, "__received")), 3)
    client = OSCClient(args.osc_port)
    comparisons = []
    for _ in range(5):
        before = driver.execute_script(READ_BEAT)
        t0 = time.monotonic()
        status = client.ask("/status", reply="/status")[1]
        t1 = time.monotonic()
        after = driver.execute_script(READ_BEAT)
        pairs = dict(zip(status[0::2], status[1::2]))
        comparisons.append({"status": pairs["beat"], "tempo": pairs["tempo"], "pageBefore": before, "pageAfter": after,
                            "statusSeconds": t1 - t0})
        # The next comparison on the page's next beat: the five spread over the running beat.
        wait_until(driver, lambda d: int(d.execute_script(READ_BEAT)["beat"] or 0) != int(after["beat"] or 0), 2)
    out["comparisons"] = comparisons
    return out


def sent_since(driver, n, address, first=None, timeout=5.0):
    """What the page sent from message n on, once `address` has gone out (after `first`, when
    given: the page also asks every parameter's /mod/get now and then, so a sweep's ask may come
    before the message looked for; what came before `first` is left out)."""
    def went(d):
        sent = d.execute_script(DECODED, "__sent")[n:]
        if first is not None:
            start = next((i for i, m in enumerate(sent) if m[1] == first), None)
            sent = [] if start is None else sent[start:]
        return sent if any(m[1] == address for m in sent) else None
    found = wait_until(driver, went, timeout)
    if found is not None:
        return found
    sent = driver.execute_script(DECODED, "__sent")[n:]
    start = 0 if first is None else next((i for i, m in enumerate(sent) if m[1] == first), len(sent))
    return sent[start:]


def musical(driver, args):
    from selenium.webdriver.support.ui import Select
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_STAMPED})
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    Select(driver.find_element(By.ID, "curve")).select_by_value("linear")
    Select(driver.find_element(By.ID, "duration-musical")).select_by_value(args.duration)
    out = {"durationText": driver.execute_script("return document.getElementById('duration-text').textContent"),
           "options": driver.execute_script("return [...document.querySelectorAll('#duration-musical option')].map(o => o.value)")}
    n = len(driver.execute_script(DECODED, "__sent"))
    click_at(driver, driver.find_element(By.ID, "slider-volume"), args.fraction)
    out["sent"] = [[m[1], m[2]] for m in sent_since(driver, n, "/volume") if m[1] == "/volume"]
    # The thumb glides for the musical length: still on its way half way through.
    # Two readings: this long into the glide, then this much longer, past the glide's end.
    for key, seconds in (("during", args.read_seconds), ("after", args.hold_seconds)):
        time.sleep(seconds)  # sleep: each reading is taken a set time after the one before: time is what is measured
        out[key] = driver.execute_script(READ_THUMB, "volume")
    return out


# The thumb, marker and band of a slider at each animation frame, as fractions of the track.
SAMPLE_FRAMES = """
const s = document.getElementById('slider-' + arguments[0]);
window.__frames = [];
const until = performance.now() + arguments[1] * 1000, done = arguments[arguments.length - 1];
const geometry = (el) => { const r = s.getBoundingClientRect(), g = el.getBoundingClientRect();
                           return [(g.left - r.left) / r.width, (g.right - r.left) / r.width]; };
const step = () => {
  const now = performance.now();  // not the frame's timestamp: what arrived before this moment is drawn
  const [t0, t1] = geometry(s.querySelector('.thumb')), [m0, m1] = geometry(s.querySelector('.marker'));
  window.__frames.push({t: now, thumb: (t0 + t1) / 2, marker: (m0 + m1) / 2, value: Number(s.dataset.value)});
  if (now < until) requestAnimationFrame(step); else done();
};
requestAnimationFrame(step);
"""

BAND = """
const s = document.getElementById('slider-' + arguments[0]);
const b = s.querySelector('.mod-band'), r = s.getBoundingClientRect(), g = b.getBoundingClientRect();
return {hidden: b.hidden, low: (g.left - r.left) / r.width, high: (g.right - r.left) / r.width, trackWidth: r.width,
        state: s.closest('.param').querySelector('[data-role=mod-state]')?.textContent ?? null,
        mod: s.dataset.mod ?? null};
"""


def modulator(driver, args):
    from selenium.webdriver.support.ui import Select
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_STAMPED})
    set_viewport(driver, 900, 1280)
    driver.get(args.url)
    wait_live(driver, args.param)
    wait_until(driver, lambda d: not d.execute_script(BAND, args.param)["hidden"])
    out = {"band": driver.execute_script(BAND, args.param), "thumb": driver.execute_script(READ_THUMB, args.param),
           "parameter": next(p for p in driver.execute_script("return window.paramd.parameters()") if p["name"] == args.param)}
    received_before = len(driver.execute_script("return window.__received"))
    driver.execute_async_script(SAMPLE_FRAMES, args.param, 1.0)  # returns when a second of frames is drawn
    out["frames"] = driver.execute_script("return window.__frames")
    out["values"] = [[t, a[0]] for t, address, a in driver.execute_script(DECODED, "__received")[received_before:]
                     if address == "/" + args.param and a and isinstance(a[0], (int, float))]
    if args.screenshot:
        driver.execute_script("document.querySelector('[data-param=%s] details.mod').open = true" % args.param)
        driver.execute_script("window.scrollTo(0, 0)")
        next_frames(driver)
        driver.save_screenshot(args.screenshot)
        driver.execute_script("document.querySelector('[data-param=%s] details.mod').open = false" % args.param)

    # A modulator from the page's panel, on volume.
    panel = driver.find_element(By.CSS_SELECTOR, "[data-param=volume] details.mod")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", panel)
    panel.find_element(By.TAG_NAME, "summary").click()
    Select(panel.find_element(By.CSS_SELECTOR, "[data-role=mod-shape]")).select_by_value("triangle")
    Select(panel.find_element(By.CSS_SELECTOR, "[data-role=mod-polarity]")).select_by_value("up")
    driver.execute_script("const d = arguments[0]; d.value = '0.3'; d.dispatchEvent(new Event('input'));",
                          panel.find_element(By.CSS_SELECTOR, "[data-role=mod-depth]"))
    rate = panel.find_element(By.CSS_SELECTOR, "[data-role=mod-rate]")
    rate.clear()
    rate.send_keys("fast")
    n = len(driver.execute_script(DECODED, "__sent"))
    panel.find_element(By.CSS_SELECTOR, "[data-role=mod-set]").click()
    quiet_window()
    # The page's own refresh every few seconds (/status and each /mod/get) may fall in the window;
    # what a bad rate must not send is a /mod.
    out["badRate"] = {"sent": [[m[1], m[2]] for m in driver.execute_script(DECODED, "__sent")[n:]
                               if m[1] != "/status" and not m[1].endswith("/mod/get")],
                      "invalid": "invalid" in rate.get_attribute("class"), "notes": driver.execute_script(TOASTS)}
    rate.clear()
    rate.send_keys("4n")
    n = len(driver.execute_script(DECODED, "__sent"))
    panel.find_element(By.CSS_SELECTOR, "[data-role=mod-set]").click()
    out["set"] = [[m[1], m[2]] for m in sent_since(driver, n, "/volume/mod/get", first="/volume/mod") if m[1].startswith("/volume/mod")]
    wait_until(driver, lambda d: not d.execute_script(BAND, "volume")["hidden"], 3)
    out["volumeBand"] = driver.execute_script(BAND, "volume")
    out["volumeThumb"] = driver.execute_script(READ_THUMB, "volume")
    client = OSCClient(args.osc_port)
    out["modGet"] = client.ask("/volume/mod/get", reply="/volume/mod")
    n = len(driver.execute_script(DECODED, "__sent"))
    panel.find_element(By.CSS_SELECTOR, "[data-role=mod-stop]").click()
    out["stop"] = [[m[1], m[2]] for m in sent_since(driver, n, "/volume/mod/get", first="/volume/mod/stop") if m[1].startswith("/volume/mod")]
    wait_until(driver, lambda d: d.execute_script(BAND, "volume")["hidden"], 3)
    out["afterStop"] = driver.execute_script(BAND, "volume")
    out["modGetAfterStop"] = client.ask("/volume/mod/get", reply="/volume/mod")
    out["notes"] = driver.execute_script(TOASTS)
    return out


READ_TIMECODE = """
const box = document.getElementById('timecode');
return {hidden: box.hidden, label: document.getElementById('timecode-label').textContent,
        fps: document.getElementById('timecode-fps').textContent, locked: box.dataset.locked ?? null};
"""

# The header as the next animation frame draws it: the page draws the timecode in its own
# requestAnimationFrame callback, asked for before this one, so what this reads was drawn after
# the script was called (a plain read may return a label drawn up to a frame before).
READ_TIMECODE_NEXT_FRAME = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => done((() => { %s })()));
""" % READ_TIMECODE


def timecode(driver, args):
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    wait_until(driver, lambda d: not d.execute_script(READ_TIMECODE)["hidden"], 5)
    client = OSCClient(args.osc_port)
    readings = []
    for _ in range(10):
        before = driver.execute_script(READ_TIMECODE)
        status = client.ask("/status", reply="/status")[1]
        after = driver.execute_async_script(READ_TIMECODE_NEXT_FRAME)  # drawn after /status answered
        pairs = dict(zip(status[0::2], status[1::2]))
        readings.append({"status": pairs["tc"], "pageBefore": before, "pageAfter": after})
        # The next reading five frames on the page later: ten readings over two seconds.
        for _ in range(5):
            shown = driver.execute_script(READ_TIMECODE)["label"]
            wait_until(driver, lambda d: d.execute_script(READ_TIMECODE)["label"] != shown, 2)
    return {"readings": readings}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=("tempo", "musical", "modulator", "timecode"))
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--osc-port", type=int, default=9000)
    parser.add_argument("--screenshot")
    parser.add_argument("--param", default="frequency")
    parser.add_argument("--duration", default="1m")
    parser.add_argument("--fraction", type=float, default=0.2)
    parser.add_argument("--read-seconds", type=float, default=1.0)
    parser.add_argument("--hold-seconds", type=float, default=0.0)
    args = parser.parse_args()
    run({"tempo": tempo, "musical": musical, "modulator": modulator, "timecode": timecode}, args)


if __name__ == "__main__":
    sys.exit(main())
