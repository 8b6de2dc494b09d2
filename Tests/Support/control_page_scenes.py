"""The scene strip's scenarios of control_page.py (SPEC §13): `scenes`, `recall`, `morph`."""
import time

from selenium.webdriver.common.by import By

from control_page_browser import READ_THUMB, TOASTS, quiet_window, OVERFLOW, calibrate, click_at, set_viewport, wait_live, wait_until


# Before the page's own script: every WebSocket it opens is kept, and what it sends and
# receives is recorded (binary frames: OSC packets), so a test reads exactly what went out.
RECORD_SOCKETS = """
window.__sent = []; window.__sentAt = []; window.__received = []; window.__sockets = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...a) {
    super(...a);
    window.__sockets.push(this);
    this.addEventListener('message', (e) => { if (e.data instanceof ArrayBuffer) window.__received.push(e.data); });
  }
  send(data) {
    if (data instanceof ArrayBuffer) { window.__sent.push(data); window.__sentAt.push(performance.now()); }
    return super.send(data);
  }
};
"""

DECODED = """
const OSC = window.paramd.OSC;
return window[arguments[0]].flatMap((d) => OSC.decode(d)).map((m) => [m.address, m.args]);
"""

# paramd's reply to /scene/list, as it would arrive on the page's socket.
HAND_LIST = """
const OSC = window.paramd.OSC, ws = window.__sockets[window.__sockets.length - 1];
for (const [name, members] of arguments[0]) {
  ws.dispatchEvent(new MessageEvent('message', {data: OSC.encode('/scene', [name, {type: 'i', value: members}])}));
}
ws.dispatchEvent(new MessageEvent('message', {data: OSC.encode('/scene/list/end', [])}));
"""

STRIP = """
const strip = document.getElementById('scenes');
return {hidden: strip.hidden, visible: strip.getBoundingClientRect().height > 0,
        buttons: [...strip.querySelectorAll('#scene-buttons button')].map((b) => ({scene: b.dataset.scene, text: b.textContent})),
        from: [...document.querySelectorAll('#morph-from option')].map((o) => o.value),
        to: [...document.querySelectorAll('#morph-to option')].map((o) => o.value),
        nameInvalid: document.getElementById('scene-name').classList.contains('invalid')};
"""


def scenes(driver, args):
    from selenium.webdriver.support.ui import Select
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKETS})
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "volume")
    out = {}

    def sent_since(n, address, timeout=5.0):
        def went(d):
            sent = d.execute_script(DECODED, "__sent")[n:]
            return sent if any(m[0] == address for m in sent) else None
        return wait_until(driver, went, timeout) or driver.execute_script(DECODED, "__sent")[n:]

    def count():
        return len(driver.execute_script(DECODED, "__sent"))


    def list_answers():
        got = driver.execute_script(DECODED, "__received")
        return [m for m in got if m[0] == "/scene/list/end" or (m[0] == "/error" and m[1][:1] == ["/scene/list"])]

    def wait_list_answer(seen):
        wait_until(driver, lambda d: len(list_answers()) > seen)
        return list_answers()[seen:]

    # The page asked for the list when it connected; paramd's answer to it.
    out["listAnswer"] = wait_list_answer(0)
    out["sentAtConnect"] = [m for m in driver.execute_script(DECODED, "__sent") if m[0].startswith("/scene")]
    out["stripAfterAnswer"] = driver.execute_script(STRIP)
    driver.execute_script(HAND_LIST, [["dark", 3], ["bright", 2], ["_previous", 5]])
    out["strip"] = driver.execute_script(STRIP)

    # Recall with the default action, then with easeInOutCubic over 3 s.
    n = count()
    click_at(driver, driver.find_element(By.CSS_SELECTOR, "#scene-buttons button[data-scene=bright]"))
    out["recallDefault"] = [m for m in sent_since(n, "/scene/recall") if m[0].startswith("/scene")]
    driver.execute_script("""
        const c = document.getElementById('curve'); c.value = 'easeInOutCubic'; c.dispatchEvent(new Event('change'));
        const r = document.getElementById('duration'); r.value = '548'; r.dispatchEvent(new Event('input'));""")
    out["duration"] = driver.execute_script("return document.getElementById('duration-text').textContent")
    n = count()
    click_at(driver, driver.find_element(By.CSS_SELECTOR, "#scene-buttons button[data-scene=dark]"))
    out["recall"] = [m for m in sent_since(n, "/scene/recall") if m[0].startswith("/scene")]
    wait_until(driver, lambda d: any(t["title"] == "/scene/recall" for t in d.execute_script(TOASTS)))
    out["notesAfterRecall"] = driver.execute_script(TOASTS)
    out["receivedAfterRecall"] = [m for m in driver.execute_script(DECODED, "__received") if m[0].startswith("/scene") or m[0] == "/error"]

    # Save: a name paramd would refuse is caught in the page; a good one is sent, then the list asked for.
    field = driver.find_element(By.ID, "scene-name")
    n = count()
    field.send_keys("Bad Name")
    click_at(driver, driver.find_element(By.ID, "scene-save"))
    quiet_window()
    out["badSave"] = {"sent": [m for m in driver.execute_script(DECODED, "__sent")[n:] if m[0].startswith("/scene")],
                      "strip": driver.execute_script(STRIP)}
    field.clear()
    field.send_keys("look-1")
    n, answered = count(), len(list_answers())
    click_at(driver, driver.find_element(By.ID, "scene-save"))
    out["save"] = [m for m in sent_since(n, "/scene/list") if m[0].startswith("/scene")]
    out["fieldAfterSave"] = field.get_attribute("value")
    # paramd answers that /scene/list; then the list is handed over again as its reply.
    out["listAnswerAfterSave"] = wait_list_answer(answered)
    driver.execute_script(HAND_LIST, [["dark", 3], ["bright", 2], ["look-1", 5]])
    out["stripAfterSave"] = driver.execute_script(STRIP)

    # Morph: both pickers chosen sends /scene/morph; Release sends /scene/release.
    n = count()
    Select(driver.find_element(By.ID, "morph-from")).select_by_value("dark")
    Select(driver.find_element(By.ID, "morph-to")).select_by_value("bright")
    out["morph"] = [m for m in sent_since(n, "/scene/morph") if m[0].startswith("/scene")]
    n = count()
    click_at(driver, driver.find_element(By.ID, "morph-release"))
    out["release"] = [m for m in sent_since(n, "/scene/release") if m[0].startswith("/scene")]
    out["pickersAfterRelease"] = driver.execute_script(
        "return [document.getElementById('morph-from').value, document.getElementById('morph-to').value]")
    if args.screenshot:
        driver.execute_script("window.scrollTo(0, 0)")
        driver.save_screenshot(args.screenshot)
    set_viewport(driver, 375, 812)
    out["narrow"] = driver.execute_script(OVERFLOW)
    return out


SAMPLE_MANY = """
const names = arguments[0];
window.__samples = [];
window.__sampler = setInterval(() => {
  const row = {t: performance.now()};
  for (const n of names) {
    const s = document.getElementById('slider-' + n);
    const r = s.getBoundingClientRect(), t = s.querySelector('.thumb').getBoundingClientRect();
    row[n] = {u: (t.left + t.width / 2 - r.left) / r.width, value: Number(s.dataset.value), target: Number(s.dataset.target)};
  }
  window.__samples.push(row);
}, 4);
"""


def recall(driver, args):
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKETS})
    set_viewport(driver, 900, args.height)
    driver.get(args.url)
    wait_live(driver, "volume")
    names = args.watch.split(",")
    button = wait_until(driver, lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, f"#scene-buttons button[data-scene='{args.scene}']")), None))
    if button is None:
        raise SystemExit(f"no button for scene {args.scene}: {driver.execute_script(STRIP)}")
    driver.execute_script("""
        const c = document.getElementById('curve'); c.value = 'linear'; c.dispatchEvent(new Event('change'));
        const r = document.getElementById('duration'); r.value = '316'; r.dispatchEvent(new Event('input'));""")
    offset, error = calibrate(driver)
    before = {n: driver.execute_script(READ_THUMB, n) for n in names}
    driver.execute_script(SAMPLE_MANY, names)
    n = len(driver.execute_script(DECODED, "__sent"))
    click_at(driver, button)
    if args.screenshot:
        time.sleep(args.read_seconds / 2)  # sleep: the picture is of the glide half way through its length
        driver.save_screenshot(args.screenshot)
    wait_until(driver, lambda d: any(t["title"] == "scene " + args.scene for t in d.execute_script(TOASTS)), args.read_seconds + 5)
    notes = driver.execute_script(TOASTS)
    samples = driver.execute_script("clearInterval(window.__sampler); return window.__samples")
    # When the page sent the recall (WebDriver's click itself takes a while to arrive).
    sent_at = driver.execute_script("""
        const OSC = window.paramd.OSC;
        const i = window.__sent.findIndex((d, k) => k >= arguments[0] && OSC.decode(d)[0].address === '/scene/recall');
        return i < 0 ? null : window.__sentAt[i];""", n)
    for row in samples:
        row["t"] = row["t"] / 1000 + offset
    return {"before": before, "sentAt": None if sent_at is None else sent_at / 1000 + offset,
            "calibrationError": error, "samples": samples,
            "sent": [m for m in driver.execute_script(DECODED, "__sent")[n:] if m[0].startswith("/scene")],
            "notes": notes, "after": {n: driver.execute_script(READ_THUMB, n) for n in names}}


def morph(driver, args):
    from selenium.webdriver.support.ui import Select
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKETS})
    set_viewport(driver, 900, 1100)
    driver.get(args.url)
    wait_live(driver, "morph")

    def settled(name, value, timeout=5.0):
        wait_until(driver, lambda d: abs(d.execute_script(READ_THUMB, name)["value"] - value) <= 1e-4 * max(1, abs(value)), timeout)
        return driver.execute_script(READ_THUMB, name)

    wait_until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#morph-to option[value=bright]"))
    n = len(driver.execute_script(DECODED, "__sent"))
    Select(driver.find_element(By.ID, "morph-from")).select_by_value("low")
    Select(driver.find_element(By.ID, "morph-to")).select_by_value("bright")
    out = {"bound": {"volume": settled("volume", 0.2), "frequency": settled("frequency", 880)}}
    slider = driver.find_element(By.ID, "slider-morph")
    out["inStrip"] = driver.execute_script("return document.getElementById('morph-slot').contains(arguments[0])", slider)
    click_at(driver, slider)
    out["morph"] = settled("morph", 0.5)
    out["half"] = {"volume": settled("volume", 0.4), "frequency": settled("frequency", 440)}
    driver.find_element(By.ID, "morph-release").click()
    wait_until(driver, lambda d: any(m[0] == "/scene/release" for m in d.execute_script(DECODED, "__sent")[n:]))
    out["sent"] = [m for m in driver.execute_script(DECODED, "__sent")[n:] if m[0].startswith("/scene") or m[0] == "/morph"]
    out["notes"] = driver.execute_script(TOASTS)
    return out
