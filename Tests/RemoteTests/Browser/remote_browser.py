"""Drives the remote's page in Debian's chromium, headless, through chromedriver (selenium).

Run by RemoteBrowserTests with: URL TOKEN CAPTURES_DIR [SCREENSHOT_DIR]. Prints one JSON object
with what it saw; exits 1 with a message on the first failure. Talks to 127.0.0.1 only.
"""
import base64
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, token, captures = sys.argv[1], sys.argv[2], sys.argv[3]
shots = sys.argv[4] if len(sys.argv) > 4 else None
result = {}


def fail(message):
    print(json.dumps({"failed": message, **result}))
    sys.exit(1)


CSP_WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
"""

# A capture whose file name is markup: the page must show it as text and never run it.
MARKUP_NAME = "<img src=x onerror=window.__xss=1>.jpg"


def csp_violations(driver):
    seen = driver.execute_script("return window.__csp || []")
    logged = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    return seen + logged


def browser(width, height, phone=False):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--metrics-recording-only",
                     f"--window-size={width},{height}",
                     # Nothing but 127.0.0.1: every other name fails to resolve.
                     "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # Every Content-Security-Policy violation of every page, kept where the test can read it
    # (a script added this way is not subject to the page's policy).
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CSP_WATCH})
    if phone:
        # Headless windows are at least 500 px wide: a phone's viewport is emulated.
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
    return driver


def wait(driver, seconds, condition, what):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: condition(d))
    except Exception:
        fail("timed out waiting for " + what)


def log_in(driver):
    driver.get(url + "/login")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "login-button").click()
    wait(driver, 15, lambda d: d.current_url.rstrip("/") == url.rstrip("/"), "the page after the login")
    wait(driver, 20, lambda d: d.execute_script("const i = document.getElementById('preview'); return i.complete && i.naturalWidth > 0;"),
         "the preview")


# The chart: the preview is not flat (a test chart has edges and patches of colour).
SPREAD = """
const i = document.getElementById('preview');
const c = document.createElement('canvas'); c.width = 160; c.height = 90;
const x = c.getContext('2d'); x.drawImage(i, 0, 0, 160, 90);
const d = x.getImageData(0, 0, 160, 90).data; let lo = 255, hi = 0;
for (let k = 0; k < d.length; k += 4) { const y = (d[k] + d[k + 1] + d[k + 2]) / 3; lo = Math.min(lo, y); hi = Math.max(hi, y); }
return [i.naturalWidth, i.naturalHeight, hi - lo];
"""

driver = browser(360, 780, phone=True)
try:
    log_in(driver)
    # The cookie is HttpOnly: the page's script cannot read it; the tab keeps the token for the header.
    if "tripod_token" in driver.execute_script("return document.cookie"):
        fail("the page's script can read the token cookie")
    if driver.execute_script("return sessionStorage.getItem('tripod_token')") != token:
        fail("the tab does not keep the token for the Authorization header")
    result["cookie_hidden_from_script"] = True
    overflow = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    result["phone_width"] = overflow
    if overflow[0] > overflow[1]:
        fail("the page is wider than the phone: %d > %d px" % tuple(overflow))
    width, height, spread = driver.execute_script(SPREAD)
    result["preview"] = {"width": width, "height": height, "spread": spread}
    if spread < 64:
        fail("the preview is flat (spread %d)" % spread)
    preview = driver.find_element(By.ID, "preview")
    first = preview.screenshot_as_png
    time.sleep(1.0)
    second = preview.screenshot_as_png
    result["screenshots_differ"] = first != second
    if first == second:
        fail("two screenshots a second apart are the same")

    # Overlays switch on and draw.
    for toggle in ["zebra", "peaking", "histogram"]:
        driver.find_element(By.ID, toggle).click()
    wait(driver, 10, lambda d: not d.execute_script("return document.getElementById('histogram-chart').hidden"), "the histogram")

    # Exposure from the page: the shutter control, built from /api/settings.
    wait(driver, 10, lambda d: d.find_elements(By.ID, "setting-exposure.duration"), "the settings")
    shutter = driver.find_element(By.ID, "setting-exposure.duration")
    driver.execute_script("arguments[0].value = '1/250'; arguments[0].dispatchEvent(new Event('change'))", shutter)
    wait(driver, 10, lambda d: "exposure.duration=1/250" in d.find_element(By.ID, "reply").text, "the set reply")
    result["set_reply"] = driver.find_element(By.ID, "reply").text
    # The remote's own settings are shown, not editable (a change would cut this connection).
    for key in ["remote.listen", "remote.tls"]:
        if driver.find_element(By.ID, "setting-" + key).is_enabled():
            fail("%s can be edited from the page" % key)
    if not driver.find_element(By.ID, "setting-exposure.iso").is_enabled():
        fail("exposure.iso is read-only on the page")

    # A preset whose name is markup is refused by the API (names are letters, digits, - and _).
    reply = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch('/api/command', { method: 'POST', body: arguments[0],
          headers: { Authorization: 'Bearer ' + sessionStorage.getItem('tripod_token') } })
          .then(r => r.json()).then(done).catch(e => done({ error: String(e) }));""",
        "preset save <img src=x onerror=window.__xss=1> ev 3 1")
    result["markup_preset"] = reply
    if reply.get("ok") is not False or reply.get("code") != "bad-value":
        fail("a preset named with markup was not refused: %s" % reply)
    # A capture file named with markup is listed as text when the list is built again.
    with open(os.path.join(captures, MARKUP_NAME), "wb") as f:
        f.write(b"not a jpeg")

    # Capture: the file appears in the list; its download is the file on disk.
    before = set(a.get_attribute("data-path") for a in driver.find_elements(By.CSS_SELECTOR, "#captures a"))
    driver.find_element(By.ID, "capture").click()

    def new_jpeg(d):
        paths = [a.get_attribute("data-path") for a in d.find_elements(By.CSS_SELECTOR, "#captures a")]
        fresh = [p for p in paths if p not in before and p.endswith(".jpg")]
        return fresh[0] if fresh else None
    path = wait(driver, 30, new_jpeg, "the capture in the list")
    link = driver.find_element(By.CSS_SELECTOR, "#captures a[data-path='%s']" % path)
    body = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0]).then(r => r.arrayBuffer()).then(b => {
          let s = ''; const u = new Uint8Array(b); for (let k = 0; k < u.length; k++) s += String.fromCharCode(u[k]);
          done(btoa(s)); }).catch(e => done('error ' + e));""", link.get_attribute("href"))
    downloaded = base64.b64decode(body)
    with open(os.path.join(captures, path), "rb") as f:
        on_disk = f.read()
    result["capture"] = {"path": path, "bytes": len(downloaded), "identical": downloaded == on_disk}
    if downloaded != on_disk:
        fail("the download of %s differs from the file on disk" % path)

    # The markup name (listed by the same refresh) is text: a link whose text is the name, no
    # element made from it, nothing run.
    wait(driver, 15, lambda d: MARKUP_NAME in d.find_element(By.ID, "captures").text, "the markup-named capture as text")
    made = driver.execute_script("return document.querySelectorAll('#captures img[src=\"x\"], img[src=\"x\"]').length")
    ran = driver.execute_script("return window.__xss === 1")
    result["markup_capture"] = {"elements_made": made, "ran": ran}
    if made or ran:
        fail("the markup in a capture's name became an element (%d) or ran (%s)" % (made, ran))

    # Record start and stop from the page.
    driver.find_element(By.ID, "record-start").click()
    wait(driver, 15, lambda d: "recording=" in d.find_element(By.ID, "reply").text, "record start's reply")
    result["record_start"] = driver.find_element(By.ID, "reply").text
    time.sleep(1.5)
    driver.find_element(By.ID, "record-stop").click()
    wait(driver, 15, lambda d: d.find_element(By.ID, "reply").text.startswith("record stop: ok"), "record stop's reply")
    result["record_stop"] = driver.find_element(By.ID, "reply").text
    wait(driver, 15, lambda d: "record.stopped" in d.find_element(By.ID, "events").text, "the record.stopped event")
    result["events"] = driver.find_element(By.ID, "events").text.count("\n") + 1

    # Under the policy nothing of the page was refused (no inline script, style or handler).
    result["csp_violations"] = csp_violations(driver)
    if result["csp_violations"]:
        fail("Content-Security-Policy violations: %s" % result["csp_violations"])
    # The watch sees a violation when there is one: an inline script the policy refuses.
    driver.execute_script("const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s)")
    wait(driver, 5, lambda d: any("script-src" in v for v in d.execute_script("return window.__csp")), "the probe's violation")
    if driver.execute_script("return window.__inline === 1"):
        fail("an inline script ran under the policy")

    if shots:
        driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(1.5)
        driver.save_screenshot(os.path.join(shots, "remote-phone.png"))
finally:
    driver.quit()

if shots:
    desktop = browser(1280, 900)
    try:
        log_in(desktop)
        desktop.find_element(By.ID, "histogram").click()
        time.sleep(1.5)
        desktop.save_screenshot(os.path.join(shots, "remote-desktop.png"))
    finally:
        desktop.quit()

print(json.dumps(result))
