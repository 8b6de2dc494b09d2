"""The take strip's scenario of control_page.py (SPEC §17): `take`."""
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from control_page_browser import READ_THUMB, TOASTS, set_viewport, wait_live, wait_until
from control_page_scenes import DECODED, RECORD_SOCKETS

# The strip as the user sees it: each take's row and state, the record button, the red dots.
STRIP = """
const strip = document.getElementById('takes');
return {hidden: strip.hidden,
        takes: [...strip.querySelectorAll('.take')].map((t) => ({take: t.dataset.take, state: t.dataset.state})),
        record: document.getElementById('take-record').textContent,
        dots: [...document.querySelectorAll('.param.recording')].map((r) => r.dataset.param)};
"""


def take_state(name, state):
    return lambda d: next((t for t in d.execute_script(STRIP)["takes"] if t["take"] == name and t["state"] == state), None)


def drag(driver, name, start, end, steps=12):
    """A real pointer drag along `name`'s track from `start` to `end` (fractions of its width)."""
    slider = driver.find_element(By.ID, "slider-" + name)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", slider)
    left, top, width, height = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", slider)
    y = round(top + height / 2)
    actions = ActionBuilder(driver, duration=40)
    actions.pointer_action.move_to_location(round(left + start * width), y)
    actions.pointer_action.pointer_down()
    for k in range(1, steps + 1):
        actions.pointer_action.move_to_location(round(left + (start + (end - start) * k / steps) * width), y)
    actions.pointer_action.pointer_up()
    actions.perform()


def take(driver, args):
    """The record button with `/volume` in the pattern field records a drag along the volume
    track; Stop; the take's play button plays it back. What the page sent, the strip at each
    step (the red dot while recording), and the notes."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_SOCKETS})
    set_viewport(driver, 900, 1280)
    driver.get(args.url)
    wait_live(driver, "volume")
    wait_until(driver, lambda d: not d.execute_script(STRIP)["hidden"])
    out = {"before": driver.execute_script(STRIP)}
    pattern = driver.find_element(By.ID, "take-pattern")
    pattern.send_keys(Keys.CONTROL, "a")
    pattern.send_keys("/volume")
    driver.find_element(By.ID, "take-name").send_keys("drag")
    driver.find_element(By.ID, "take-record").click()
    out["recording"] = driver.execute_script(STRIP) if wait_until(driver, take_state("drag", "recording")) else driver.execute_script(STRIP)
    drag(driver, "volume", 0.9, 0.2)
    # The drag's last target reached: the gesture is over.
    wait_until(driver, lambda d: abs(d.execute_script(READ_THUMB, "volume")["value"] - d.execute_script(READ_THUMB, "volume")["target"]) < 1e-4, 10)
    driver.find_element(By.ID, "take-record").click()
    out["stopped"] = driver.execute_script(STRIP) if wait_until(driver, take_state("drag", "stopped")) else driver.execute_script(STRIP)
    driver.find_element(By.CSS_SELECTOR, ".take[data-take='drag'] button[data-role='play']").click()
    wait_until(driver, lambda d: any(t["title"] == "take drag" for t in d.execute_script(TOASTS)), 15)
    out["notes"] = driver.execute_script(TOASTS)
    out["sent"] = [m for m in driver.execute_script(DECODED, "__sent")
                   if (m[0].startswith("/take") and m[0] != "/take/list") or m[0] == "/volume"]
    out["after"] = driver.execute_script(STRIP)
    if args.screenshot:
        driver.save_screenshot(args.screenshot)
    return out
