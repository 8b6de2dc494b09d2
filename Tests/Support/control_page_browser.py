"""The browser and the readings every control-page scenario shares (control_page.py,
control_page_scenes.py, control_page_time.py): headless Chromium, the thumb as the user
sees it, the notes shown, the page's overflow."""
import json
import os
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.support.ui import WebDriverWait

# The thumb's centre as a fraction of the track, from the geometry the user sees (not from a
# number the page keeps), with the page's own value and target.
READ_THUMB = """
const s = document.getElementById('slider-' + arguments[0]);
if (!s) return null;
const r = s.getBoundingClientRect(), t = s.querySelector('.thumb').getBoundingClientRect();
return {u: (t.left + t.width / 2 - r.left) / r.width,
        value: s.dataset.value === undefined ? null : Number(s.dataset.value),
        target: s.dataset.target === undefined ? null : Number(s.dataset.target),
        connection: document.getElementById('connection').dataset.state};
"""

SAMPLER = """
const s = document.getElementById('slider-' + arguments[0]);
window.__samples = [];
window.__sampler = setInterval(() => {
  const r = s.getBoundingClientRect(), t = s.querySelector('.thumb').getBoundingClientRect();
  window.__samples.push({t: performance.now(), u: (t.left + t.width / 2 - r.left) / r.width, value: Number(s.dataset.value)});
}, 4);
"""

TOASTS = """
return [...document.querySelectorAll('#toasts .toast')].map(t => ({kind: t.dataset.kind,
  title: t.querySelector('strong').textContent, text: t.querySelector('.toast-text').textContent}));
"""

OVERFLOW = """
const d = document.documentElement;
return {scrollWidth: d.scrollWidth, clientWidth: d.clientWidth, innerWidth: window.innerWidth,
        widest: Math.max(...[...document.querySelectorAll('body *')].map(e => e.getBoundingClientRect().right))};
"""


def jack_clock():
    """Seconds on JACK's clock: jackd 1.9.21 reads CLOCK_MONOTONIC_RAW on Linux."""
    return time.clock_gettime(time.CLOCK_MONOTONIC_RAW)


def say(line):
    print(line, flush=True)


def browser(width, height):
    options = webdriver.ChromeOptions()
    binary = os.environ.get("PARAMD_CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--no-first-run", "--disable-extensions", "--disable-background-networking",
                 "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                 "--force-device-scale-factor=1", "--hide-scrollbars", f"--window-size={width},{height}"):
        options.add_argument(flag)
    driver_path = os.environ.get("PARAMD_CHROMEDRIVER", "/usr/bin/chromedriver")
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    driver.set_script_timeout(10)
    return driver


def calibrate(driver, clock=jack_clock):
    """`clock` − performance.now()/1000 and its error (± half the bracket), from the narrowest
    of 20 bracketed readings of performance.now()."""
    calibrations = []
    for _ in range(20):
        t0 = clock()
        now = driver.execute_script("return performance.now()")
        t1 = clock()
        calibrations.append((t1 - t0, (t0 + t1) / 2 - now / 1000))
    width, offset = min(calibrations)
    return offset, width / 2


def click_at(driver, element, fraction=0.5):
    """A pointer press and release at `fraction` of `element`'s width, half way down, scrolled
    into view first (a phone-sized page is taller than its screen)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'})", element)
    left, top, width, height = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", element)
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(round(left + fraction * width), round(top + height / 2))
    actions.pointer_action.pointer_down()
    actions.pointer_action.pointer_up()
    actions.perform()


def run(scenarios, args):
    """Runs the scenario `args.scenario` names in a 900 × 1100 browser, adds the console's
    warnings and errors, writes the result to `args.out` as JSON and says "done"."""
    driver = browser(900, 1100)
    try:
        result = scenarios[args.scenario](driver, args)
        try:
            result["console"] = [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "WARNING")]
        except Exception:  # not every driver keeps the console log
            result["console"] = []
    finally:
        driver.quit()
    with open(args.out, "w") as f:
        json.dump(result, f)
    say("done")


def wait_until(driver, condition, timeout=5.0):
    """Until condition(driver) is truthy, which is returned; None once `timeout` has passed.
    WebDriverWait asks the page again every 20 ms: no fixed sleep in the scenarios."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition)
    except TimeoutException:
        return None


def quiet_window(seconds=0.2):
    """A window in which nothing may happen (no message sent): its absence is what the caller
    checks afterwards, so there is no event to wait for; the window's length is the point."""
    time.sleep(seconds)  # sleep: nothing must go out: the absence of a message is what is checked


def script(source, *args):
    """A condition for wait_until: the page's answer to `source`."""
    return lambda driver: driver.execute_script(source, *args)


def next_frames(driver):
    """Until the page has drawn twice more (two animation frames): layout and paint done."""
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done()))")


def wait_live(driver, name, timeout=20.0):
    """Until the page is live and shows `name`'s value (and target); returns the reading."""
    def live(driver):
        r = driver.execute_script(READ_THUMB, name)
        return r if r and r["connection"] == "live" and r["value"] is not None and r["target"] is not None else None
    r = wait_until(driver, live, timeout)
    if r is not None:
        return r
    raise SystemExit(f"the page did not show {name} live within {timeout} s: {driver.execute_script(READ_THUMB, name)}")


def set_viewport(driver, width, height):
    """Resizes so that the page's viewport (not the window) is width × height, and waits until
    the page has laid itself out at that width."""
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(width + (width - inner[0]), height + (height - inner[1]))
    wait_until(driver, script("return window.innerWidth === arguments[0]", width), 2)
    next_frames(driver)
