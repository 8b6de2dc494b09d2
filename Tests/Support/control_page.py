#!/usr/bin/env python3
"""Drives paramd's control page (/ui) in headless Chromium with Selenium, for ControlPageTests.

Debian's chromium and chromium-driver (scripts/install-deps.sh), Selenium from PyPI
(Tests/Support/requirements.txt). The Swift suite starts JACK, paramd and the recorder, runs one
scenario here and judges what it writes:

  glide      press the volume track at --fraction (a real pointer click at that x), then read the
             thumb's position many times, each reading bracketed by CLOCK_MONOTONIC_RAW stamps
             (the clock JACK stamps its periods with on Linux; it drifts from CLOCK_MONOTONIC),
             so the suite can set it beside the recording;
             screenshots at the window's size and at 375 px wide, with the page's overflow.
  keys       focus the volume slider and press Home, End, Page Down, Left, Left, Up: the target
             after each key.
  curves     the curve plot's formulas, evaluated in the page, against --reference (the shared
             reference values the engine is tested against): each curve's worst difference.
  showcase   the README's screenshot: a few presses, then frequency gliding over 3 s along
             easeInOutCubic, caught half way (--screenshot).
  touch      a finger (WebDriver touch input): a tap on pan, a drag along volume, a swipe down
             across tone; the targets shown after each.
  marker     with the page open, `oscsend … /frequency ffs 880 3 easeInOutCubic` (another
             controller): when the page's frequency marker moved (a MutationObserver's
             performance.now(), set on time.monotonic()), where it was drawn, and the thumb then.
  scenes     the scene strip (SPEC §13): what paramd answered the page's /scene/list; a list
             handed to the page as paramd's reply (/scene … /scene/list/end) and the strip drawn
             from it; real clicks on scene buttons (the default action, then easeInOutCubic
             over 3 s), a save through the field (a bad name, then a good one; the list handed
             over again once paramd answered the page's new /scene/list), the morph pickers and
             Release: every OSC message the page sent, and the notes shown.
  recall     against a paramd that has a scene --scene: the page's curve set to linear and its
             duration to 1 s, a real click on that scene's button; what the page sent and when,
             the thumbs and markers of the --watch parameters read by the page every 4 ms
             (performance.now() set on JACK's clock), the notes; a screenshot half way through
             the glide (--screenshot).
  morph      against a paramd with scenes `low` and `bright`: the pickers set to low → bright, a
             real press at the middle of the morph track, then Release; what the page sent, and
             the volume and frequency thumbs once each had settled.
  take       the take strip (SPEC §17, control_page_takes.py): `/volume` in the pattern field, a
             name, the record button, a real drag along the volume track, Stop, then the take's
             play button; what the page sent, the strip at each step (the red dot) and the notes.
  reconnect  prints `live` once the page shows values; `lost` once it shows the connection lost
             (the suite stops paramd); `back <value>` once it is live again and shows volume at
             --expect; `followed <n> <value>` once the thumb has moved through n intermediate
             positions to --follow (the suite sends that target over UDP).

Results go to --out as JSON; progress lines to stdout.
"""
import argparse
import json
import sys
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from control_page_browser import READ_THUMB, SAMPLER, TOASTS, OVERFLOW, calibrate, click_at, jack_clock, next_frames, run, say, script, set_viewport, wait_live, wait_until
from control_page_scenes import morph, recall, scenes
from control_page_takes import take


def glide(driver, args):
    result = {}
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    before = wait_live(driver, "volume")
    result["before"] = before
    slider = driver.find_element(By.ID, "slider-volume")
    rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", slider)
    left, top, width, height = rect
    x = round(left + args.fraction * width)
    y = round(top + height / 2)
    result["track"] = {"left": left, "width": width, "clickX": x}
    # Read the thumb while idle for a moment (it must stay at the old value), press, read on.
    readings = []

    def read():
        t0 = jack_clock()
        r = driver.execute_script(READ_THUMB, "volume")
        t1 = jack_clock()
        r["t0"], r["t1"] = t0, t1
        readings.append(r)

    # The page also samples its own thumb every 4 ms (setInterval; the geometry again), stamped
    # with performance.now(), set on JACK's clock by the narrowest of 20 bracketed readings of
    # performance.now(): dense readings without a WebDriver round trip each.
    offset, error = calibrate(driver)
    result["calibration"] = {"offset": offset, "error": error}
    driver.execute_script(SAMPLER, "volume")
    for _ in range(5):
        read()
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(x, y)
    actions.pointer_action.pointer_down()
    actions.pointer_action.pointer_up()
    result["press"] = [jack_clock()]
    actions.perform()
    result["press"].append(jack_clock())
    end = time.monotonic() + args.read_seconds
    while time.monotonic() < end:
        read()
    result["readings"] = readings
    result["samples"] = [{"t0": x["t"] / 1000 + offset - error, "t1": x["t"] / 1000 + offset + error,
                          "u": x["u"], "value": x["value"]}
                         for x in driver.execute_script("clearInterval(window.__sampler); return window.__samples")]
    result["after"] = driver.execute_script(READ_THUMB, "volume")
    result["toasts"] = driver.execute_script(TOASTS)
    if args.screenshot:
        driver.save_screenshot(args.screenshot)
        result["screenshot"] = args.screenshot
    # A phone-sized screen: no horizontal scroll, and a screenshot.
    set_viewport(driver, 375, 812)
    result["narrow"] = driver.execute_script(OVERFLOW)
    result["narrow"]["thumb"] = driver.execute_script(READ_THUMB, "volume")
    if args.screenshot:
        narrow = args.screenshot.replace(".png", "-375.png")
        driver.save_screenshot(narrow)
        result["narrowScreenshot"] = narrow
    return result


def keys(driver, args):
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    slider = driver.find_element(By.ID, "slider-volume")
    driver.execute_script("arguments[0].focus()", slider)
    steps = []
    for name, key in (("Home", Keys.HOME), ("End", Keys.END), ("PageDown", Keys.PAGE_DOWN),
                      ("ArrowLeft", Keys.ARROW_LEFT), ("ArrowLeft", Keys.ARROW_LEFT), ("ArrowUp", Keys.ARROW_UP)):
        before = slider.get_attribute("data-target")
        ActionChains(driver).send_keys(key).perform()
        # Until the key has moved the target (a key that leaves it in place costs a second).
        wait_until(driver, lambda d: slider.get_attribute("data-target") != before, 1)
        # One read of all three: paramd's echo of the target (a float32, 0.89 → 0.88999998…)
        # can land between two separate reads and move both attributes together.
        target, aria, focused = driver.execute_script(
            "const s = arguments[0]; return [s.dataset.target, s.getAttribute('aria-valuenow'),"
            " document.activeElement === s];", slider)
        steps.append({"key": name, "target": float(target), "ariaValueNow": float(aria), "focused": focused})
    # The thumb settles where the keys left the target (the sound followed).
    wait_until(driver, lambda d: abs(d.execute_script(READ_THUMB, "volume")["value"] - steps[-1]["target"]) < 1e-6)
    settled = driver.execute_script(READ_THUMB, "volume")
    # A curve paramd does not know, typed as a custom curve: paramd's /error shows as a note,
    # and the target stays where it was.
    driver.execute_script("""
        const c = document.getElementById('curve'); c.value = '*'; c.dispatchEvent(new Event('change'));
        const t = document.getElementById('curve-custom'); t.value = 'wobble(3)'; t.dispatchEvent(new Event('input'));
        arguments[0].focus();""", slider)
    ActionChains(driver).send_keys(Keys.HOME).perform()
    notes = wait_until(driver, lambda d: (lambda n: n if any(t["kind"] == "error" for t in n) else None)(d.execute_script(TOASTS)))
    notes = notes or driver.execute_script(TOASTS)
    next_frames(driver)  # the page has drawn after paramd's /error: a target it kept stays
    return {"steps": steps, "settled": settled, "notes": notes, "afterError": driver.execute_script(READ_THUMB, "volume"),
            "customInvalid": driver.execute_script("return document.getElementById('curve-custom').classList.contains('invalid')"),
            "role": slider.get_attribute("role"),
            "aria": {k: slider.get_attribute(k) for k in ("aria-valuemin", "aria-valuemax", "aria-valuetext", "tabindex")}}


def reconnect(driver, args):
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    first = wait_live(driver, "volume")
    say(f"live {first['value']}")
    lost = wait_until(driver, script("""
        const c = document.getElementById('connection');
        return c.dataset.state !== 'live' ? document.getElementById('connection-text').textContent : null"""), 30)
    if lost is None:
        raise SystemExit("the page never showed the connection lost")
    say(f"lost {json.dumps(lost)}")
    lost_at = time.monotonic()
    def back_live(d):
        r = d.execute_script(READ_THUMB, "volume")
        return r if r and r["connection"] == "live" and r["value"] is not None and abs(r["value"] - args.expect) < 1e-4 else None
    back = wait_until(driver, back_live, 60)
    if back is None:
        raise SystemExit(f"the page did not come back showing volume {args.expect}: {driver.execute_script(READ_THUMB, 'volume')}")
    back_after = time.monotonic() - lost_at
    say(f"back {back['value']}")
    seen = set()

    def followed(d):
        r = d.execute_script(READ_THUMB, "volume")
        v = r["value"]
        lo, hi = sorted((args.expect, args.follow))
        if lo + 0.02 < v < hi - 0.02:
            seen.add(round(v, 4))
        return r if abs(v - args.follow) < 1e-6 else None
    final = wait_until(driver, followed, 20)
    if final is None:
        raise SystemExit(f"the page did not follow volume to {args.follow}: {driver.execute_script(READ_THUMB, 'volume')}")
    say(f"followed {len(seen)} {final['value']}")
    return {"lostText": lost, "backAfterSeconds": back_after, "back": back, "intermediate": sorted(seen), "final": final}


MARKER_WATCH = """
const s = document.getElementById('slider-' + arguments[0]);
window.__marker = [];
new MutationObserver(() => {
  const r = s.getBoundingClientRect(), m = s.querySelector('.marker').getBoundingClientRect();
  window.__marker.push({t: performance.now(), target: Number(s.dataset.target), value: Number(s.dataset.value),
                        u: (m.left + m.width / 2 - r.left) / r.width,
                        text: s.parentElement.querySelector('[data-role=target]').textContent});
}).observe(s, {attributes: true, attributeFilter: ['data-target']});
"""


def marker(driver, args):
    import subprocess
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    before = wait_live(driver, "frequency")
    before["text"] = driver.execute_script(
        "return document.querySelector('[data-param=frequency] [data-role=target]').textContent")
    offset, error = calibrate(driver, time.monotonic)
    driver.execute_script(MARKER_WATCH, "frequency")
    sent = time.monotonic()
    subprocess.run(["oscsend", "localhost", str(args.osc_port), "/frequency", "ffs", "880", "3", "easeInOutCubic"], check=True)
    moved = wait_until(driver, lambda d: next((m for m in d.execute_script("return window.__marker") if m["target"] == 880), None), 3)
    if moved is not None:
        moved["seconds"] = moved["t"] / 1000 + offset - sent
    param = next(p for p in driver.execute_script("return window.paramd.parameters()") if p["name"] == "frequency")
    return {"before": before, "moved": moved, "calibrationError": error, "parameter": param}


def showcase(driver, args):
    """The README's picture (docs/images/control-page.png): a glide in progress."""
    set_viewport(driver, 900, args.height)
    driver.get(args.url)
    wait_live(driver, "volume")

    def press(name, fraction):
        click_at(driver, driver.find_element(By.ID, "slider-" + name), fraction)

    press("volume", 0.8)
    press("tone", 0.5)
    press("pan", 0.35)
    wait_until(driver, lambda d: not d.execute_script(TOASTS), 10)  # their /done notes have gone
    press("input", 0.9)  # one note to show
    driver.execute_script("""
        const c = document.getElementById('curve'); c.value = 'easeInOutCubic'; c.dispatchEvent(new Event('change'));
        const r = document.getElementById('duration'); r.value = '548'; r.dispatchEvent(new Event('input'));""")
    start = driver.execute_script(READ_THUMB, "frequency")["u"]
    press("frequency", 0.62)
    # The picture: the thumb a third of the way along its glide.
    wait_until(driver, lambda d: abs(d.execute_script(READ_THUMB, "frequency")["u"] - start) >= abs(0.62 - start) / 3, 10)
    driver.save_screenshot(args.screenshot)
    return {"screenshot": args.screenshot}


def touch(driver, args):
    """A finger: a tap at 80 % of the pan track; a drag along the volume track from 50 % to 30 %;
    a swipe down across the tone track (which must scroll, not set a target). The targets the
    page shows after each."""
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    from selenium.webdriver.common.actions import interaction
    set_viewport(driver, 390, 844)
    driver.get(args.url)
    wait_live(driver, "volume")

    def track(name):
        slider = driver.find_element(By.ID, "slider-" + name)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
        next_frames(driver)  # scrolled and drawn
        return driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", slider)

    def finger(points, settled, pause=0.03):
        actions = ActionBuilder(driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        x, y = points[0]
        actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pointer_down()
        for x, y in points[1:]:
            actions.pointer_action.pause(pause)
            actions.pointer_action.move_to_location(x, y)
        actions.pointer_action.pointer_up()
        actions.perform()
        wait_until(driver, settled, 2)
        next_frames(driver)

    def target(name):
        return driver.execute_script(READ_THUMB, name)["target"]

    out = {"before": {n: target(n) for n in ("pan", "volume", "tone")}}
    left, top, width, height = track("pan")
    before = target("pan")
    finger([(round(left + 0.8 * width), round(top + height / 2))], lambda d: target("pan") != before)
    out["tap"] = target("pan")
    left, top, width, height = track("volume")
    y = round(top + height / 2)
    before = target("volume")
    finger([(round(left + f * width), y) for f in (0.5, 0.46, 0.42, 0.38, 0.34, 0.3)], lambda d: target("volume") != before)
    out["drag"] = target("volume")
    left, top, width, height = track("tone")
    x = round(left + 0.7 * width)
    scroll = driver.execute_script("return window.scrollY")
    finger([(x, round(top + height / 2) + dy) for dy in (0, 10, 20, 40, 60, 80)],
           lambda d: d.execute_script("return window.scrollY") != scroll)
    out["swipe"] = {"target": target("tone"), "scrolledBy": scroll - driver.execute_script("return window.scrollY")}
    return out


def curves(driver, args):
    """The plot's curves (computed in the page) against the reference values: each curve's
    largest difference and its count of rows."""
    import csv
    rows = list(csv.DictReader(open(args.reference, newline="")))
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    found = driver.execute_script("""
        const out = {};
        for (const [curve, progress, value] of arguments[0]) {
          const parsed = window.paramd.Curves.parse(curve, 1);
          const o = out[curve] || (out[curve] = {rows: 0, worst: 0, parsed: !!parsed});
          o.rows += 1;
          if (!parsed) continue;
          const d = Math.abs(parsed.f(progress) - value);
          if (!(d <= o.worst)) { o.worst = d; o.at = progress; }
        }
        return out;""", [[r["curve"], float(r["progress"]), float(r["value"])] for r in rows])
    return {"curves": found}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=("glide", "keys", "touch", "reconnect", "showcase", "curves", "marker", "scenes", "recall", "morph", "take"))
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--fraction", type=float, default=0.2)
    parser.add_argument("--read-seconds", type=float, default=1.0)
    parser.add_argument("--expect", type=float, default=0.3)
    parser.add_argument("--follow", type=float, default=0.6)
    parser.add_argument("--height", type=int, default=1280)
    parser.add_argument("--osc-port", type=int, default=9000)
    parser.add_argument("--scene", default="low", help="for `recall`: the scene to press")
    parser.add_argument("--watch", default="volume", help="for `recall`: parameters whose thumbs are read")
    parser.add_argument("--reference", help="curves.csv (curve,progress,value), for `curves`")
    args = parser.parse_args()
    run({"glide": glide, "keys": keys, "reconnect": reconnect, "showcase": showcase, "curves": curves,
         "touch": touch, "marker": marker, "scenes": scenes, "recall": recall, "morph": morph, "take": take}, args)


if __name__ == "__main__":
    sys.exit(main())
