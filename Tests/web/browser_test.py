"""The web view in a real browser: Debian's Chromium, driven by selenium through chromedriver.

Run by scripts/web-test, which starts a fleet (steno-asr, two steno-worker processes and
steno-api) on a fresh database and passes its address, keys and fixtures here. Every check
fails the run with a message; screenshots of each page at 1280x800 and 390x844 are written to
--screenshots for a person to look at.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DESKTOP = (1280, 800)
PHONE = (390, 844)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


class Browser:
    def __init__(self, base, screenshots):
        self.base = base.rstrip("/")
        self.screenshots = screenshots
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("STENO_CHROMIUM", "/usr/bin/chromium")
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--lang=en-US",
                         "--force-device-scale-factor=1", f"--window-size={DESKTOP[0]},{DESKTOP[1]}"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(executable_path=os.environ.get("STENO_CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(options=options, service=service)
        self.driver.set_page_load_timeout(30)
        self.size(DESKTOP)

    def size(self, size):
        # The window's outer size differs from the page's viewport by the browser's frame:
        # set the viewport itself, as a phone or a desktop screen would have it.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": size == PHONE})

    def open(self, path):
        self.driver.get(self.base + path)
        return self.driver

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def wait(self, condition, seconds, message):
        try:
            return WebDriverWait(self.driver, seconds, poll_frequency=0.2).until(lambda driver: condition())
        except TimeoutException:
            raise Failure(f"{message} (waited {seconds} s on {self.driver.current_url})")

    def attribute(self, css, name):
        """Read in one step: a live region may be swapped between finding an element and reading it."""
        return self.driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", css, name)

    def text(self, css):
        return self.driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : null", css)

    def follow(self, target, seconds=20):
        """Clicks a link or a form's button and waits for the page it leads to: chromedriver does
        not always wait for the navigation a click starts, and the old page would be read.
        `target` is a CSS selector, found again when a live region swapped the element between
        finding and clicking it (a run under load saw #retry-link go stale so), or an element."""
        old = self.find("html")
        if isinstance(target, str):
            self.wait(lambda: self.click_fresh(target), seconds, f"{target} could not be clicked")
        else:
            target.click()
        self.wait(lambda: self.gone(old), seconds, "the click did not lead to another page")
        self.wait(self.loaded, seconds, "the page did not finish loading")

    def click_fresh(self, css):
        """Finds `css` and clicks it; False, to be tried again, when the element went stale."""
        try:
            self.find(css).click()
            return True
        except StaleElementReferenceException:
            return False

    @staticmethod
    def gone(element):
        """True once `element` belongs to a page that is no longer shown. While the browser is
        between two pages, chromedriver may answer any command with an error other than a stale
        element (it cannot reach the document): that is "not yet", asked again at the next poll."""
        try:
            element.tag_name
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException:
            return False

    def loaded(self):
        try:
            return self.js("return document.readyState") == "complete"
        except WebDriverException:
            return False

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def shoot(self, name):
        """Saves the page at both sizes, the desktop's first; returns to the desktop size."""
        # From the top of the page, as it opens, with no control focused by the checks before.
        self.js("document.activeElement && document.activeElement.blur()")
        for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
            self.size(size)
            self.js("window.scrollTo(0, 0)")
            # Two animation frames: the page has laid out and painted at this size.
            self.driver.execute_async_script(
                "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done()))")
            path = os.path.join(self.screenshots, f"{name}-{label}-{size[0]}x{size[1]}.png")
            self.driver.save_screenshot(path)
            # Nothing may stick out sideways: a phone scrolls down, never across (tables
            # scroll inside their own box).
            overflow = self.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
            check(overflow <= 1, f"{name} at {size[0]}x{size[1]}: the page is {overflow}px wider than the screen")
        self.size(DESKTOP)

    def console_problems(self):
        # Script errors and refused content (CSP); network answers such as the 403s this test
        # provokes on purpose are checked where they are asked for.
        return [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE" and entry.get("source") != "network"]

    def quit(self):
        self.driver.quit()


def sign_in(browser, key, expect_ok=True):
    browser.open("/sign-in")
    field = browser.find("#key")
    field.clear()
    field.send_keys(key)
    browser.follow("form[action='/sign-in'] button[type=submit]")
    if expect_ok:
        browser.wait(lambda: browser.driver.current_url.rstrip("/") == browser.base or "/sign-in" not in browser.driver.current_url,
                     10, "signing in did not leave the sign-in page")


def sign_out(browser):
    browser.follow("form[action='/sign-out'] button")
    browser.wait(lambda: "/sign-in" in browser.driver.current_url, 10, "signing out did not reach the sign-in page")


def api(base, key, method, path, body=None, headers=None):
    request = urllib.request.Request(base + path, method=method, data=body, headers={"Authorization": f"Bearer {key}", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def upload(base, key, path, title):
    boundary = "stenoboundary7d3a"
    with open(path, "rb") as file:
        data = file.read()
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n{title}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{os.path.basename(path)}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    status, answer = api(base, key, "POST", "/v1/media", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    check(status == 202, f"upload of {path}: {status} {answer[:300]!r}")
    return json.loads(answer)["media"]["media_id"]


def wait_done(base, key, media_id, seconds=240):
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, answer = api(base, key, "GET", f"/v1/media/{media_id}")
        state = json.loads(answer)["media"]["state"]
        if state in ("succeeded", "failed", "cancelled"):
            return state
        time.sleep(0.5)
    raise Failure(f"media {media_id} did not finish in {seconds} s")


FOCUSABLE = "a[href], button, input:not([type=hidden]), select, textarea, audio[controls], [tabindex]:not([tabindex='-1'])"


def check_controls(browser, page):
    # A live region may be swapped while its controls are read: read them again.
    for attempt in range(3):
        try:
            return check_controls_once(browser, page)
        except StaleElementReferenceException:
            if attempt == 2:
                raise


def check_controls_once(browser, page):
    """Every control has a name a screen reader says, no positive tabindex reorders the page,
    and Tab walks the controls in the order they stand on the page."""
    controls = browser.all(FOCUSABLE)
    for control in controls:
        if not control.is_displayed() and control.get_attribute("class") != "skip":
            continue
        name = (control.accessible_name or "").strip()
        check(name, f"{page}: a {control.tag_name} has no accessible name: {control.get_attribute('outerHTML')[:160]}")
        tabindex = control.get_attribute("tabindex")
        check(tabindex in (None, "", "0", "-1"), f"{page}: tabindex {tabindex} changes the focus order: {control.get_attribute('outerHTML')[:120]}")
    # The skip link is the page's first control, and Tab from it walks the controls in the
    # order they stand on the page.
    first = next((control for control in controls if control.is_displayed() or control.get_attribute("class") == "skip"), None)
    check(first is not None and first.get_attribute("class") == "skip",
          f"{page}: the first control should be 'Skip to content', is {first and first.get_attribute('outerHTML')[:120]}")
    browser.js("arguments[0].focus()", first)
    positions = []
    for _ in range(min(12, len(controls))):
        positions.append(browser.js(
            "const all = Array.from(document.querySelectorAll('*')); return all.indexOf(document.activeElement)"))
        # The key as a user presses it, to whatever has focus: sent to the focused element, it
        # failed as "not interactable" when a live refresh swapped that element in between.
        ActionChains(browser.driver).send_keys(Keys.TAB).perform()
    check(positions == sorted(positions), f"{page}: Tab moved backwards through the page: {positions}")


def check_focus_kept(browser, page, change, seconds=40):
    """A live refresh swaps a region's controls for new ones: keyboard focus stays on the same
    control, one without an id too, instead of falling back to the top of the page. `change` is
    done once focus is placed: a change the server sends an event for, so that the refresh comes
    from it and not from the page's quiet-stream timer. Returns what `change` returned."""
    placed = browser.js("""
        for (const region of document.querySelectorAll('[data-live][id]')) {
          const all = Array.from(region.querySelectorAll(arguments[0]));
          const control = all.find((c) => !c.id && c.getClientRects().length > 0);
          if (!control) continue;
          control.focus();
          control.dataset.beforeRefresh = 'yes';
          return {region: region.id, index: all.indexOf(control), tag: control.tagName,
                  text: control.textContent.trim(), refreshed: document.body.dataset.refreshed || ''};
        }
        return null;""", FOCUSABLE)
    check(placed is not None, f"{page}: no control without an id in a live region to keep focus on")
    changed = change()
    browser.wait(lambda: (browser.js("return document.body.dataset.refreshed || ''") or "") != placed["refreshed"],
                 seconds, f"{page}: the live regions were not refreshed")
    now = browser.js("""
        const active = document.activeElement;
        const region = active && active.closest('[data-live][id]');
        if (!region) return {region: null, tag: active ? active.tagName : null};
        return {region: region.id, index: Array.from(region.querySelectorAll(arguments[0])).indexOf(active),
                tag: active.tagName, text: active.textContent.trim(), swapped: active.dataset.beforeRefresh !== 'yes'};""", FOCUSABLE)
    expected = {key: placed[key] for key in ("region", "index", "tag", "text")}
    check(now.get("swapped") is True and {key: now.get(key) for key in expected} == expected,
          f"{page}: focus was {placed}, after a live refresh it is {now}")
    print(f"{page}: focus kept on the {placed['tag'].lower()} '{placed['text'][:40]}' across a live refresh")
    return changed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("--book", required=True)
    parser.add_argument("--long", required=True)
    parser.add_argument("--bad-media-id", type=int, required=True, help="a media of the tenant that failed")
    parser.add_argument("--other-media-id", type=int, required=True, help="a media of another tenant")
    parser.add_argument("--conversation", required=True, help="a talk of two voices (synth-two), with its .rttm beside it")
    arguments = parser.parse_args()
    admin_key = os.environ["STENO_WEB_ADMIN_KEY"]
    read_key = os.environ["STENO_WEB_READ_KEY"]
    base = arguments.base_url.rstrip("/")
    os.makedirs(arguments.screenshots, exist_ok=True)

    book_id = upload(base, admin_key, arguments.book, "The Lighthouse Book")
    talk_id = upload(base, admin_key, arguments.conversation, "Two Voices")
    check(wait_done(base, admin_key, book_id) == "succeeded", "the book did not succeed")
    check(wait_done(base, admin_key, talk_id) == "succeeded", "the two-voice talk did not succeed")

    browser = Browser(base, arguments.screenshots)
    try:
        # Signing in: a wrong key is told as such, on the same page.
        browser.open("/")
        check("/sign-in" in browser.driver.current_url, "a signed-out browser was not sent to sign in")
        check_controls(browser, "sign-in")
        browser.shoot("sign-in")
        sign_in(browser, "stk_" + "A" * 43, expect_ok=False)
        check("unknown or revoked" in browser.find(".problem").text, "a wrong key was not told as unknown")
        cookies = {cookie["name"]: cookie for cookie in browser.driver.get_cookies()}
        check("steno_session" not in cookies, "a wrong key made a session")
        sign_in(browser, admin_key)
        session = {cookie["name"]: cookie for cookie in browser.driver.get_cookies()}["steno_session"]
        check(session["httpOnly"] and session.get("sameSite") == "Strict", f"the session cookie must be HttpOnly and SameSite=Strict: {session}")
        check(browser.js("return document.cookie").find("steno_session") < 0, "scripts can read the session cookie")
        print("sign-in: a wrong key refused; the session cookie is HttpOnly and SameSite=Strict")

        # Live: the overview follows a recording from its upload to done, unreloaded. The count
        # is read before the upload, so that however soon the recording is done, the rise is seen.
        browser.open("/")
        browser.wait(lambda: browser.attribute("#live-status", "data-state") == "live", 15, "the overview did not connect to the event stream")
        before = int(browser.text("[data-count=succeeded]"))
        browser.js("window.stenoNotReloaded = true")
        upload(base, admin_key, arguments.book, "Followed Live")
        browser.wait(lambda: int(browser.text("[data-count=succeeded]")) == before + 1, 240,
                     "the overview's succeeded count did not rise live")
        check(browser.js("return window.stenoNotReloaded === true"), "the overview reloaded instead of updating in place")
        print(f"overview: the succeeded count rose from {before} to {before + 1} live")
        check_controls(browser, "overview")
        check(browser.all("#fleet"), "an admin key's overview has no fleet section")
        check("primary" in browser.find("#fleet").text, "the overview does not list the backend")
        browser.shoot("overview")

        # A budget reached: the media page says which and how to raise it, and nothing is lost.
        # Held there, the media is still in work when its page is opened; raising the budget
        # lets it finish, and the open page follows it to done, unreloaded.
        operator_key = os.environ["STENO_WEB_OPERATOR_KEY"]
        status, answer = api(base, operator_key, "PATCH", "/v1/tenants/web", json.dumps({"daily_audio_hours": 0}).encode(),
                             {"Content-Type": "application/json"})
        check(status == 200, f"setting the tenant's budget: {status} {answer[:300]!r}")
        held_id = upload(base, admin_key, arguments.book, "Held by a Budget")

        def held():
            browser.open(f"/media/{held_id}")
            return any("daily budget" in item.text for item in browser.all("[aria-labelledby=holds-heading] li"))
        browser.wait(held, 120, "the media page of a tenant over its budget does not say so")
        hold = next(item.text for item in browser.all("[aria-labelledby=holds-heading] li") if "daily budget" in item.text)
        check("steno tenants set web --daily-audio-hours" in hold, f"the hold does not say how to raise the budget: {hold}")
        browser.shoot("media-over-budget")
        print(f"media page, over budget: {hold}")
        browser.js("window.stenoNotReloaded = true")
        states = {browser.attribute("#media-state", "data-state")}
        status, answer = api(base, operator_key, "PATCH", "/v1/tenants/web", json.dumps({"daily_audio_hours": None}).encode(),
                             {"Content-Type": "application/json"})
        check(status == 200, f"clearing the tenant's budget: {status} {answer[:300]!r}")

        def finished():
            states.add(browser.attribute("#media-state", "data-state"))
            return "succeeded" in states
        browser.wait(finished, 240, "the media page did not reach succeeded live once the budget was cleared")
        check(browser.js("return window.stenoNotReloaded === true"), "the media page reloaded instead of updating in place")
        check(len(states) >= 2, f"the media page saw only {states}: it never showed the media before it was done")
        print(f"media page: states seen live {sorted(states)}")
        check(wait_done(base, admin_key, held_id) == "succeeded", "the media held by the budget did not succeed once it was cleared")
        check_controls(browser, "media")
        browser.shoot("media")

        # The reader: a click on a segment seeks the player there; playing highlights the words.
        browser.open(f"/media/{book_id}/read?chapter=2")
        player = browser.find("#player")
        browser.wait(lambda: browser.js("return arguments[0].readyState", player) >= 1, 20, "the player did not load the recording's metadata")
        duration = browser.js("return arguments[0].duration", player)
        check(duration > 25, f"the player reports {duration} s for a 29 s book")
        segment = browser.all(".segment")[-1]
        start = float(segment.get_attribute("data-start"))
        segment.find_element(By.CSS_SELECTOR, ".text").click()
        browser.wait(lambda: abs(browser.js("return arguments[0].currentTime", player) - start) < 0.5, 10,
                     f"a click on the segment at {start} s did not seek there")
        print(f"reader: a click on the segment at {start:.2f} s set currentTime to {browser.js('return arguments[0].currentTime', player):.2f}")
        words = segment.find_elements(By.CSS_SELECTOR, ".w")
        if len(words) > 3:
            word = words[3]
            word_start = float(word.get_attribute("data-start"))
            word.click()
            browser.wait(lambda: abs(browser.js("return arguments[0].currentTime", player) - word_start) < 0.5, 10,
                         f"a click on a word at {word_start} s did not seek there")
        browser.js("arguments[0].currentTime = Number(document.querySelector('.segment').dataset.start); arguments[0].play()", player)
        browser.wait(lambda: browser.js("return !arguments[0].paused && arguments[0].currentTime > 0", player), 10, "the player did not play")
        # A second played: the highlight has followed the time at least once.
        played_from = browser.js("return arguments[0].currentTime", player)
        browser.wait(lambda: browser.js("return arguments[0].currentTime", player) > played_from + 1, 10, "the player did not play on")
        now = browser.js("return arguments[0].currentTime", player)
        highlighted = browser.all(".segment.now")
        check(len(highlighted) == 1, f"{len(highlighted)} segments are highlighted while playing at {now:.2f} s")
        lit = highlighted[0]
        check(float(lit.get_attribute("data-start")) <= now + 0.3, "the highlighted segment starts after the playing time")
        lit_words = browser.all(".w.now")
        check(len(lit_words) == 1 and float(lit_words[0].get_attribute("data-start")) <= now + 0.3 <= float(lit_words[0].get_attribute("data-end")) + 2,
              f"the highlighted word does not match the playing time {now:.2f}")
        print(f"reader: playing at {now:.2f} s highlights the segment at {lit.get_attribute('data-start')} s and the word '{lit_words[0].text}'")
        browser.js("arguments[0].pause()", player)
        check(len(browser.all(".chapters nav ol li")) == 3, "the reader does not list the book's three chapters")
        check(len(browser.all("a[download]")) == 10, "the reader does not offer every export format for the chapter and the media")
        href = browser.all("a[download]")[1].get_attribute("href")
        cookie = "steno_session=" + session["value"]
        request = urllib.request.Request(href, headers={"Cookie": cookie})
        with urllib.request.urlopen(request) as answer:
            check(answer.status == 200 and b"-->" in answer.read(), f"the srt download {href} is not an srt file")
        check_controls(browser, "reader")
        browser.shoot("reader")

        # Speakers: the talk's two voices, each with its colour, talk time, a filter and a rename form.
        browser.open(f"/media/{talk_id}/read")
        names = [element.text for element in browser.all("#speakers-panel .speaker-name")]
        check(names == ["Speaker 1", "Speaker 2"], f"the reader lists the speakers {names}")
        talks = [element.text for element in browser.all("#speakers-panel .talk")]
        check(all("%" in talk for talk in talks), f"talk times {talks}")
        lines = browser.all(".segment[data-speaker]")
        check(len(lines) == len(browser.all(".segment")) and lines, "not every line of the talk has a speaker")
        colours = {browser.js("return getComputedStyle(arguments[0]).borderLeftColor", element.find_element(By.CSS_SELECTOR, ".speaker"))
                   for element in lines}
        check(len(colours) == 2, f"the two speakers are not told apart by colour: {colours}")
        shown_names = [element.text for element in browser.all(".segment .speaker:not(.repeat)")]
        check(set(shown_names) == {"Speaker 1", "Speaker 2"}, f"names shown where the turn changes: {shown_names}")
        check_controls(browser, "reader with speakers")
        browser.shoot("reader-speakers")
        # The filter hides the unchecked speaker's lines and shows them again.
        second = [element for element in lines if element.get_attribute("data-speaker") == "2"]
        browser.find("#speakers-panel input[data-speaker='2']").click()
        browser.wait(lambda: not any(element.is_displayed() for element in second), 5, "unchecking Speaker 2 left their lines shown")
        check(all(element.is_displayed() for element in lines if element.get_attribute("data-speaker") == "1"), "the filter hid Speaker 1 too")
        browser.shoot("reader-speakers-filtered")
        browser.find("#speakers-panel input[data-speaker='2']").click()
        browser.wait(lambda: all(element.is_displayed() for element in second), 5, "checking Speaker 2 again did not show their lines")
        # Renaming: the name is shown in the panel and on every line of that speaker.
        browser.find("#speakers-panel details.rename summary").click()
        field = browser.find("#speakers-panel details.rename input[name='name']")
        field.clear()
        field.send_keys("Sally Lighthouse")
        browser.follow("#speakers-panel details.rename button[type=submit]")
        browser.wait(lambda: "Sally Lighthouse" in [element.text for element in browser.all("#speakers-panel .speaker-name")], 10,
                     "the renamed speaker is not shown by name")
        check("Sally Lighthouse" in [element.text for element in browser.all(".segment .speaker:not(.repeat)")], "the lines do not show the new name")
        print(f"reader: {len(lines)} lines of two speakers, filter and rename work")
        browser.shoot("reader-speakers-renamed")
        status, answer = api(base, admin_key, "GET", f"/v1/media/{talk_id}/transcript?format=srt")
        check(status == 200 and b"Sally Lighthouse: " in answer, "the SRT export does not carry the new name")

        # Flagged text is shown as flagged, never as the transcript proper.
        flagged = browser.all(".segment.flagged")
        for element in flagged:
            check("flagged" in element.text, "a flagged segment is not labelled")

        # Search: a phrase from the book lands on its moment in the reader.
        browser.open("/search")
        field = browser.find("#q")
        field.send_keys('"the harbor filled"')
        field.send_keys(Keys.ENTER)
        browser.wait(lambda: browser.all("#hits li") or browser.all("#no-hits"), 10, "the search did not answer")
        hits = browser.all("#hits li")
        check(hits, "the phrase from the book found nothing")
        check(browser.all("#hits mark"), "the hit's snippet marks no words")
        check_controls(browser, "search")
        browser.shoot("search")
        browser.follow(hits[0].find_element(By.TAG_NAME, "a"))
        browser.wait(lambda: "/read" in browser.driver.current_url, 10, "the hit did not open the reader")
        anchor = browser.driver.current_url.split("#")[-1]
        target = browser.find("#" + anchor)
        check("harbor" in target.text.lower(), f"the reader opened at {anchor}, which does not hold the phrase: {target.text[:80]}")
        visible = browser.js("const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight", target)
        check(visible, "the hit's segment is not on screen")
        print(f"search: \"the harbor filled\" opened the reader at {anchor}: {target.text[:60]}")

        # Media list with filters.
        browser.open("/media?state=succeeded")
        rows = browser.all("tr[data-media]")
        check(len(rows) >= 3 and all(r.find_element(By.CSS_SELECTOR, "[data-state]").get_attribute("data-state") == "succeeded" for r in rows),
              "the state filter shows other states")
        browser.open("/media?q=" + "Lighthouse")
        check([r.get_attribute("data-media") for r in browser.all("tr[data-media]")] == [str(book_id)], "the title filter does not find the book alone")
        browser.open("/media")
        check_controls(browser, "media-list")
        browser.shoot("media-list")

        # Cancel and retry, each through its confirmation page.
        # Its upload is an event for the tenant: the held media's page, with focus in a live
        # region, is refreshed by it and keeps the focus.
        browser.open(f"/media/{held_id}")
        third_id = check_focus_kept(browser, "media", lambda: upload(base, admin_key, arguments.long, "A Talk to Cancel"))
        browser.open(f"/media/{third_id}")
        browser.follow("#cancel-link")
        check("Cancel" in browser.find("h1").text, "cancel did not ask first")
        check_controls(browser, "confirm")
        browser.shoot("confirm")
        browser.follow("#confirm-action")
        browser.wait(lambda: browser.attribute("#media-state", "data-state") == "cancelled", 15,
                     "the media was not cancelled")
        check("Cancelled" in browser.text(".notice"), "no notice said it was cancelled")
        browser.follow("#retry-link")
        browser.follow("#confirm-action")
        browser.wait(lambda: browser.attribute("#media-state", "data-state") in ("queued", "probing", "transcribing", "succeeded"), 15,
                     "retry did not queue the media again")
        print(f"cancel and retry: media {third_id} cancelled, then {browser.attribute('#media-state', 'data-state')} again")
        # Cancelled again, so that the workers do not spend the rest of the run on an hour of talk.
        status, answer = api(base, admin_key, "POST", f"/v1/media/{third_id}/cancel")
        check(status in (200, 202), f"cancelling the retried talk through the API: {status} {answer[:300]!r}")

        # Failures grouped by class, retried in bulk.
        browser.open("/")
        groups = browser.all("#failures .failure")
        check(groups, "the failed media is not in the overview's failures")
        retry_all = browser.all("#failures a.button[href*='retry-failed']")
        check(retry_all, "the failure group has no retry-all button")
        browser.follow(retry_all[0])
        browser.follow("#confirm-action")
        browser.wait(lambda: browser.all(".notice"), 10, "bulk retry did not come back to the overview")
        check("queued again" in browser.find(".notice").text, "bulk retry said nothing")
        status, answer = api(base, admin_key, "GET", f"/v1/media/{arguments.bad_media_id}")
        check(json.loads(answer)["media"]["state"] != "failed" or json.loads(answer)["media"]["attempts"] >= 2, "bulk retry did not touch the failed media")
        print("failures: the group's retry-all queued the failed media again")
        browser.open(f"/media/{arguments.bad_media_id}")
        browser.wait(lambda: browser.attribute("#media-state", "data-state") == "failed", 60, "the retried media did not fail again")
        history = browser.text("#attempts")
        check(history and "media" in history and "failed" in history, f"the failed media's page shows no failed attempt: {history!r}")
        check(browser.all(".problem-card") and "What to do" in browser.text(".problem-card"), "the failed media's page gives no remedy")
        check_controls(browser, "failed media")
        browser.shoot("media-failed")

        # Forms need the session's token: a form posted without it is refused.
        outcome = browser.js("""
            return fetch('/media/%d/cancel', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
                         body: 'csrf=forged'}).then(r => r.status)""" % held_id)
        check(outcome == 403, f"a form with a forged token answered {outcome}, not 403")

        # Another tenant's media is not there.
        browser.open(f"/media/{arguments.other_media_id}")
        check("404" in browser.find("h1").text, "another tenant's media page did not answer 404")

        problems = browser.console_problems()
        check(not problems, f"the browser logged errors: {problems[:3]}")
        resources = browser.js("return performance.getEntriesByType('resource').map(e => e.name)")
        check(all(url.startswith(base) for url in resources), f"a page loaded something from elsewhere: {resources}")

        # A read key sees but cannot act.
        sign_out(browser)
        sign_in(browser, read_key)
        browser.open(f"/media/{book_id}")
        check(not browser.all("#cancel-link, #retry-link, #delete-link") and not browser.all("form[action$='/focus']"),
              "a read key's media page offers actions")
        token = browser.find("form[action='/sign-out'] input[name=csrf]").get_attribute("value")
        outcome = browser.js("""
            return fetch('/media/%d/delete', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
                         body: 'csrf=' + encodeURIComponent(arguments[0])}).then(r => r.status)""" % book_id, token)
        check(outcome == 403, f"a read key's delete with a valid token answered {outcome}, not 403")
        browser.open("/")
        check(not browser.all("#fleet") and not browser.all("#failures a.button"), "a read key's overview shows the fleet or bulk actions")
        browser.open(f"/confirm?action=delete&media={book_id}")
        check("403" in browser.find("h1").text, "a read key reached a confirmation page")
        print("read key: no actions shown; a delete with its valid token answered 403")
        sign_out(browser)
        browser.open("/")
        check("/sign-in" in browser.driver.current_url, "after signing out, the overview did not ask to sign in")
    finally:
        browser.quit()
    print(f"web-test: screenshots in {arguments.screenshots}")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        print(f"web-test: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
