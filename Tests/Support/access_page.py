#!/usr/bin/env python3
"""The control page from another host (SPEC §16), in headless Chromium driven by Selenium.

AccessTests run it in the client's network namespace, with the URL paramd printed at start:

    access_page.py --url http://10.77.0.1:9001/ui?token=… --out result.json
                   [--fraction 0.2] [--screenshot phone.png]

First the same URL without the token: the token form must show (401, no script, so no
WebSocket). Then the URL with the token: paramd answers 303 to the URL without it and sets the
cookie; the page goes live over its WebSocket, and a press on the volume track at `fraction`
sends that target. Writes what it saw as JSON; the test reads the sound over JACK.
"""
import argparse
import json
import sys

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from control_page_browser import browser, click_at

READ = """
const s = document.getElementById('slider-volume');
const c = document.getElementById('connection');
return {connection: c ? c.dataset.state : null,
        value: s && s.dataset.value !== undefined ? Number(s.dataset.value) : null,
        target: s && s.dataset.target !== undefined ? Number(s.dataset.target) : null};
"""


def wait(driver, predicate, timeout=20.0):
    """Until the page's reading meets `predicate` (WebDriverWait asks again every 50 ms)."""
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            lambda d: (lambda r: r if predicate(r) else None)(d.execute_script(READ)))
    except TimeoutException:
        raise SystemExit(f"the page did not get there within {timeout} s: {driver.execute_script(READ)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--fraction", type=float, default=0.2)
    parser.add_argument("--screenshot")
    args = parser.parse_args()
    bare = args.url.split("?")[0]
    result = {}
    driver = browser(500, 900)
    # A phone's viewport (headless Chromium's window is at least 500 px wide).
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        driver.get(bare)
        result["without"] = {"title": driver.title, "url": driver.current_url,
                             "form": len(driver.find_elements(By.CSS_SELECTOR, "form input[name=token]")),
                             "scripts": len(driver.find_elements(By.TAG_NAME, "script")),
                             "sliders": len(driver.find_elements(By.CSS_SELECTOR, "[id^=slider-]"))}
        driver.get(args.url)
        live = wait(driver, lambda r: r["connection"] == "live" and r["value"] is not None)
        result["with"] = {"url": driver.current_url, "title": driver.title, "live": live,
                          "cookie_visible": "paramd_token" in driver.execute_script("return document.cookie")}
        slider = driver.find_element(By.ID, "slider-volume")
        click_at(driver, slider, args.fraction)
        after = wait(driver, lambda r: r["target"] is not None and abs(r["target"] - args.fraction) < 0.02
                     and r["value"] is not None and abs(r["value"] - r["target"]) < 1e-6)
        result["after"] = after
        if args.screenshot:
            driver.save_screenshot(args.screenshot)
    finally:
        driver.quit()
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(main())
