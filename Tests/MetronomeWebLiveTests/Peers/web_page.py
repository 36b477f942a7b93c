"""The web remote of `metronome serve --http` in headless Chromium, driven through selenium and checked over OSC.

Usage: web_page.py SCENARIO URL OSC_PORT [ARTIFACTS_DIR]
Prints one JSON object, the report; the Swift test asserts on it. Nothing leaves this machine: Debian's chromedriver
and chromium are named (selenium's driver manager never runs), SE_OFFLINE and SE_AVOID_STATS are set, and every
request Chromium makes to a host that is not loopback goes to a dead proxy on 127.0.0.1:9.

Scenarios:
  controls  a phone (360x740): layout, labels, + over OSC, the tap pad at 0.5 s, pause/play/stop, OSC changes shown
  sections  serving 'chords': the sections, the current one marked, locate by a tap, the chord, the volume, the
            pattern menu (choosing 'waltz' loads it)
  token     the page without the token (401) and with it (it connects and shows the state)
  looks     screenshots at 360x740 and 1280x800, light and dark; reduced motion lights nothing, the counter goes on
  timing    PAGES pages (default 2) for SECONDS (default 6; env METRONOME_WEB_TIMING_PAGES, _SECONDS): every beat
            each page drew, with the page's clock against CLOCK_MONOTONIC measured by this script (not the page's own
            estimate), so a beat's drawn time is converted to host time independently of the page
  latency   PRESSES times (default 5; env METRONOME_WEB_LATENCY_PRESSES): stop, wait 0.5 to 1 s, press play (its
            page time taken as the click is dispatched); with the beats drawn and the page's clock, as in timing
  changes   PAGES pages (default 3; env METRONOME_WEB_CHANGE_PAGES) and CHANGES volume changes (default 10; env
            METRONOME_WEB_CHANGES), every other one sent over OSC by this script and from the first page's slider,
            0.2 to 0.4 s apart: when each was made (this script's clock, or the page's as the slider's change is
            dispatched) and when every page had shown each state it got (its DOM updated), with the pages' clocks
  stage     the stage view at 360x640 (phone) and 1280x800, light and dark: no scrolling, the figures' heights, every
            animation frame's colours for 2.5 s with the beats drawn in them; calm (reduced motion); the wake lock
            through a stop and a play over OSC; the button, the s key and Esc; screenshots at a beat and between beats
  setlist   serving a three-song set (A, B, C; 'switch now'): the set's area (title, song, next, the list with the
            current one marked), the next button, a song's button, the previous button and the n key, each checked
            over OSC (/metronome/setlist/query) and on the page; the stage view's song and next
  link      serve started with --link beside one Link peer (both in the test's network namespace): the Link area as
            the page shows it with the peer there, after /metronome/link 0, and after /metronome/link 1 again
"""
import json
import os
import random
import socket
import sys
import time

os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

from pythonosc.osc_message import OscMessage
from pythonosc.osc_message_builder import OscMessageBuilder
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

SCENARIO, URL, OSC_PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
ARTIFACTS = sys.argv[4] if len(sys.argv) > 4 else None
osc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
osc.bind(("127.0.0.1", 0))
osc.settimeout(5)


def send(address, *args):
    builder = OscMessageBuilder(address=address)
    for value in args:
        builder.add_arg(value)
    osc.sendto(builder.build().dgram, ("127.0.0.1", OSC_PORT))


def query():
    send("/metronome/query")
    while True:
        message = OscMessage(osc.recvfrom(65536)[0])
        if message.address == "/metronome/state":
            return dict(zip(message.params[0::2], message.params[1::2]))


def until_state(test, seconds=3):
    """Queries the service until test(state) holds; returns that state, or the last one."""
    deadline = time.time() + seconds
    state = query()
    while not test(state) and time.time() < deadline:
        time.sleep(0.02)
        state = query()
    return state


def browser(width, height, phone):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-default-apps", "--disable-domain-reliability", "--no-pings",
                     "--proxy-server=127.0.0.1:9", "--lang=en-US"]:
        options.add_argument(argument)
    if phone:
        options.add_experimental_option(
            "mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0}})
    else:
        options.add_argument("--window-size=%d,%d" % (width, height))
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def media(driver, **features):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": name.replace("_", "-"), "value": value} for name, value in features.items()]})


def ready(driver):
    """Waits for the page's first state and a clock offset from its pings."""
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(
        "return !!(window.metronome && window.metronome.state && window.metronome.offset !== null)"))


def text(driver, element):
    return driver.execute_script("return document.getElementById(arguments[0]).textContent", element)


def click(driver, element):
    driver.find_element("id", element).click()


def wait_text(driver, element, expected, seconds=3):
    start = time.time()
    while time.time() - start < seconds:
        if text(driver, element) == expected:
            return True
        time.sleep(0.01)
    return False


LAYOUT = """
const targets = Array.from(document.querySelectorAll("button, input, select")).filter((e) => e.getClientRects().length > 0);
const small = targets.map((e) => e.type === "checkbox" ? e.closest("label") : e)
  .filter((e) => { const r = e.getBoundingClientRect(); return r.width < 44 || r.height < 44; })
  .map((e) => e.id || e.textContent.trim());
const unlabelled = targets.filter((e) => !(e.getAttribute("aria-label") || (e.labels && e.labels.length &&
  e.labels[0].textContent.trim()))).map((e) => e.id || e.outerHTML);
const root = document.documentElement;
return { innerWidth: window.innerWidth, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth,
  widest: Math.max(...Array.from(document.querySelectorAll("body *")).map((e) => e.getBoundingClientRect().right)),
  small: small, unlabelled: unlabelled };
"""

TAPS = """
const done = arguments[arguments.length - 1];
const pad = document.getElementById("tap");
const start = performance.now() + 100;
const times = [];
for (let i = 0; i < 5; i++) {
  setTimeout(() => {
    const event = new PointerEvent("pointerdown", { bubbles: true, cancelable: true });
    times.push(event.timeStamp);
    pad.dispatchEvent(event);
  }, start + 500 * i - performance.now());
}
setTimeout(() => done(times), start + 2100 - performance.now());
"""

SAMPLE = """
const done = arguments[arguments.length - 1];
const seen = { lit: 0, counters: [] };
const timer = setInterval(() => {
  seen.lit += document.querySelectorAll(".light.lit").length;
  const counter = document.getElementById("counter").textContent;
  if (seen.counters[seen.counters.length - 1] !== counter) seen.counters.push(counter);
}, 10);
setTimeout(() => { clearInterval(timer); done(seen); }, 2500);
"""


TEMPO_WATCH = """
const tempo = document.getElementById("tempo");
window.tempoShown = [tempo.textContent];
new MutationObserver(() => {
  if (window.tempoShown[window.tempoShown.length - 1] !== tempo.textContent) window.tempoShown.push(tempo.textContent);
}).observe(tempo, { childList: true, characterData: true, subtree: true });
"""


def controls():
    report = {}
    driver = browser(360, 740, phone=True)
    try:
        driver.set_script_timeout(15)
        driver.get(URL)
        ready(driver)
        report["layout"] = driver.execute_script(LAYOUT)
        report["tempoShown"] = text(driver, "tempo")
        report["meterShown"] = text(driver, "meter")
        report["statusShown"] = text(driver, "status")
        start = query()
        report["tempoBefore"] = start["tempo"]
        # Every figure the tempo shows from before the press on: 120, then 121 at once and nothing else, not a state pushed before
        # the change arrived.
        driver.execute_script(TEMPO_WATCH)
        click(driver, "faster")
        report["afterPlus"] = until_state(lambda s: s["tempo"] != start["tempo"])["tempo"]
        time.sleep(0.2)
        report["tempoShownAfterPlus"] = driver.execute_script("return window.tempoShown.join(' ')")
        report["tapTimes"] = driver.execute_async_script(TAPS)
        report["afterTaps"] = until_state(lambda s: abs(s["tempo"] - 120) < 0.5)["tempo"]
        clicked = driver.execute_script("return performance.now()")
        click(driver, "pause")
        report["afterPause"] = until_state(lambda s: s["state"] == "paused")["state"]

        def paused_figures():
            # What the page and the service say: a page closed for not reading ("disconnected: retrying") gets no
            # state until it reconnects a second later, and a press while its socket is not open is not sent.
            return ("pause aria-pressed %s, page status '%s', page state %s, service state %s, commands not sent %s, "
                    "socket closes %s, the click at page time %.1f" % (
                        driver.find_element("id", "pause").get_attribute("aria-pressed"), text(driver, "status"),
                        json.dumps(driver.execute_script("return window.metronome.state && window.metronome.state.state")),
                        json.dumps(query()), json.dumps(driver.execute_script("return window.metronome.unsent")),
                        json.dumps(driver.execute_script("return window.metronome.closes")), clicked))
        if report["afterPause"] != "paused":
            raise TimeoutException("the service not paused within 3 s of the pause button's click: " + paused_figures())
        try:
            WebDriverWait(driver, 1).until(
                lambda d: d.find_element("id", "pause").get_attribute("aria-pressed") == "true")
        except TimeoutException:
            raise TimeoutException("the pause button not pressed within 1 s of the service's pause: " + paused_figures())
        report["pausePressed"] = driver.find_element("id", "pause").get_attribute("aria-pressed")
        # At 600 BPM a beat scheduled before the stop is still on its way when the page hears of the stop.
        send("/metronome/tempo", 600.0)
        report["fastTempo"] = until_state(lambda s: abs(s["tempo"] - 600) < 0.01)["tempo"]
        click(driver, "play")
        report["afterPlay"] = until_state(lambda s: s["state"] == "playing")["state"]
        time.sleep(0.3)
        click(driver, "stop")
        report["afterStop"] = until_state(lambda s: s["state"] == "stopped")["state"]
        # Stopped, the page shows the top of the map (it waited here for "–", which only a session never started
        # shows: 3 s every run, unchecked), and keeps it once the beats heard before the stop are drawn.
        report["counterAfterStop"] = wait_text(driver, "counter", "1.1")
        time.sleep(0.5)
        report["counterHeld"] = text(driver, "counter")
        click(driver, "play")
        report["afterPlayAgain"] = until_state(lambda s: s["state"] == "playing")["state"]
        send("/metronome/tempo", 96.0)
        report["oscTempoShown"] = wait_text(driver, "tempo", "96")
        # The keyboard: the right arrow is +1 BPM, as at the terminal.
        driver.find_element("tag name", "body").send_keys("\ue014")
        report["afterRightArrow"] = until_state(lambda s: abs(s["tempo"] - 97) < 0.01)["tempo"]
        send("/metronome/meter", 3, 4)
        report["oscMeterShown"] = wait_text(driver, "meter", "3/4")
        time.sleep(2.5)
        report["shown"] = driver.execute_script("return window.metronome.shown.slice(-6)")
        report["accentsShown"] = text(driver, "accents")
        # A plain click heads the pattern menu as what plays.
        report["patternMenuShown"] = driver.execute_script(
            "const menu = document.getElementById('pattern'); return menu.options[menu.selectedIndex].text")
        report["refused"] = driver.execute_script("return window.metronome.refused")
    finally:
        driver.quit()
    return report


SECTIONS = """
return Array.from(document.querySelectorAll("#sections button")).map((b) =>
  [b.textContent, b.getAttribute("aria-current")]);
"""


def sections():
    """Serving the shipped pattern 'chords' (its count-in, sections arps and blocks, chords C Am F G): the sections, the current
    one marked, a tap on the other going there at the next bar, the chord of the bar, the volume slider."""
    report = {}
    driver = browser(360, 740, phone=True)
    try:
        driver.get(URL)
        ready(driver)
        report["stateSection"] = until_state(lambda s: s["section"] == "arps", seconds=6)["section"]
        WebDriverWait(driver, 2).until(lambda d: d.execute_script(SECTIONS) == [["count-in", "false"], ["arps", "true"], ["blocks", "false"]])
        report["sectionsShown"] = driver.execute_script(SECTIONS)
        WebDriverWait(driver, 3).until(lambda d: text(d, "chord") != "")
        report["chordShown"] = text(driver, "chord")
        report["chordHidden"] = driver.execute_script("return document.getElementById('chord').hidden")
        driver.find_element("css selector", "#sections li:nth-child(3) button").click()
        report["afterLocate"] = until_state(lambda s: s["section"] == "blocks", seconds=6)["section"]
        WebDriverWait(driver, 2).until(lambda d: d.execute_script(SECTIONS) == [["count-in", "false"], ["arps", "false"], ["blocks", "true"]])
        report["sectionsAfterLocate"] = driver.execute_script(SECTIONS)
        driver.execute_script("""
            const slider = document.getElementById("volume");
            slider.value = "0.5";
            slider.dispatchEvent(new Event("input"));
            slider.dispatchEvent(new Event("change"));""")
        report["afterVolume"] = until_state(lambda s: abs(s["volume"] - 0.5) < 0.001)["volume"]
        # Played to its end (its last bar, 12, from the next bar): stopped at its top, shown as the music's first beat
        # with its bar's accents, not the count-in's 0.1; then played again.
        send("/metronome/locate", 12)
        report["afterEnd"] = until_state(lambda s: s["state"] == "stopped", seconds=8)["state"]
        wait_text(driver, "counter", "1.1")
        report["counterAfterEnd"] = text(driver, "counter")
        report["accentsAfterEnd"] = text(driver, "accents")
        click(driver, "play")
        until_state(lambda s: s["state"] != "stopped")
        # The pattern menu: the one served first, then the shipped ones; choosing one loads it.
        report["patternsListed"] = driver.execute_script(
            "return Array.from(document.getElementById('pattern').options).map((o) => o.value)")
        report["patternShown"] = driver.execute_script("return document.getElementById('pattern').value")
        driver.execute_script("""
            const menu = document.getElementById("pattern");
            menu.value = "waltz";
            menu.dispatchEvent(new Event("change"));""")
        report["afterChoice"] = until_state(lambda s: s["pattern"].endswith("/waltz.metro"))["pattern"]
        # A pattern loaded while playing takes over at the next bar.
        wait_text(driver, "meter", "3/4", seconds=6)
        report["meterAfterChoice"] = text(driver, "meter")
        report["patternShownAfterChoice"] = driver.execute_script("return document.getElementById('pattern').value")
    finally:
        driver.quit()
    return report


SONGS = """
return Array.from(document.querySelectorAll("#songs button")).map((b) => [b.textContent, b.getAttribute("aria-current")]);
"""


def setlist_song():
    """The song the service plays, from 1 (`/metronome/setlist/query`)."""
    send("/metronome/setlist/query")
    while True:
        message = OscMessage(osc.recvfrom(65536)[0])
        if message.address == "/metronome/setlist":
            return dict(zip(message.params[0::2], message.params[1::2]))["song"]


def until_song(number, seconds=3):
    deadline = time.time() + seconds
    song = setlist_song()
    while song != number and time.time() < deadline:
        time.sleep(0.02)
        song = setlist_song()
    return song


def setlist():
    """Serving a three-song set: each way the page switches songs, seen by the service and shown by the page."""
    report = {}
    driver = browser(360, 740, phone=True)
    try:
        driver.get(URL)
        ready(driver)
        WebDriverWait(driver, 3).until(lambda d: not d.execute_script("return document.getElementById('setlist-area').hidden"))
        report["title"] = text(driver, "setlist-title")
        report["first"] = [text(driver, "song"), text(driver, "song-next")]
        report["listFirst"] = driver.execute_script(SONGS)
        report["patternHidden"] = driver.execute_script("return document.getElementById('pattern-area').hidden")
        click(driver, "song-forward")
        report["afterNext"] = until_song(2)
        wait_text(driver, "song", "2/3 B")
        report["shownAfterNext"] = [text(driver, "song"), text(driver, "song-next")]
        driver.find_element("css selector", "#songs li:nth-child(3) button").click()
        report["afterChoice"] = until_song(3)
        wait_text(driver, "song", "3/3 C")
        report["shownAfterChoice"] = [text(driver, "song"), text(driver, "song-next")]
        WebDriverWait(driver, 2).until(lambda d: d.execute_script(SONGS)[2][1] == "true")
        report["listAfterChoice"] = driver.execute_script(SONGS)
        click(driver, "song-previous")
        report["afterPrevious"] = until_song(2)
        driver.find_element("tag name", "body").send_keys("n")
        report["afterKey"] = until_song(3)
        driver.find_element("tag name", "body").send_keys("s")
        wait_text(driver, "stage-song", "3/3 C")
        report["stage"] = [text(driver, "stage-song"), text(driver, "stage-next")]
    finally:
        driver.quit()
    return report


def token():
    import http.client
    report = {}
    bare = URL.split("?")[0]
    host = bare.split("/")[2]
    connection = http.client.HTTPConnection(host, timeout=5)
    connection.request("GET", "/")
    response = connection.getresponse()
    report["withoutToken"] = [response.status, response.read().decode()]
    driver = browser(360, 740, phone=True)
    try:
        driver.get(bare)
        report["pageWithoutToken"] = driver.find_element("tag name", "body").text
        driver.get(URL)
        ready(driver)
        report["statusWithToken"] = text(driver, "status")
        report["tempoWithToken"] = text(driver, "tempo")
    finally:
        driver.quit()
    return report


LINK_AREA = """
const area = document.getElementById("link-area");
return { shown: !area.hidden && area.getClientRects().length > 0, text: area.textContent.replace(/\\s+/g, " ").trim(),
  label: document.getElementById("peers").getAttribute("aria-label") };
"""


def link():
    """The Link area once it shows one peer, once Link is switched off over OSC, and once it is on again."""
    report = {}
    driver = browser(360, 740, phone=True)
    try:
        driver.get(URL)
        ready(driver)
        for step, switch, wanted in [("withPeer", None, "Link: 1 peer"), ("off", 0, None),
                                     ("onAgain", 1, "Link: 1 peer")]:
            if switch is not None:
                send("/metronome/link", switch)
            deadline = time.time() + 10
            area = driver.execute_script(LINK_AREA)
            while time.time() < deadline and (area["shown"] != (wanted is not None) or
                                              (wanted is not None and area["text"] != wanted)):
                time.sleep(0.02)
                area = driver.execute_script(LINK_AREA)
            report[step] = area
    finally:
        driver.quit()
    return report


def looks():
    report = {"screenshots": [], "lit": {}, "counters": {}}
    for width, height, phone in [(360, 740, True), (1280, 800, False)]:
        driver = browser(width, height, phone)
        try:
            driver.set_script_timeout(15)
            for scheme in ["light", "dark"]:
                media(driver, prefers_color_scheme=scheme)
                driver.get(URL)
                ready(driver)
                time.sleep(0.5)
                path = os.path.join(ARTIFACTS, "web-%dx%d-%s.png" % (width, height, scheme))
                driver.save_screenshot(path)
                background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
                report["screenshots"].append({"path": path, "background": background,
                                              "scrollWidth": driver.execute_script(
                                                  "return document.documentElement.scrollWidth"),
                                              "clientWidth": driver.execute_script(
                                                  "return document.documentElement.clientWidth")})
            if phone:
                for motion in ["no-preference", "reduce"]:
                    media(driver, prefers_reduced_motion=motion)
                    driver.get(URL)
                    ready(driver)
                    seen = driver.execute_async_script(SAMPLE)
                    report["lit"][motion] = seen["lit"]
                    report["counters"][motion] = seen["counters"]
        finally:
            driver.quit()
    return report


STAGE_FRAMES = """
const seconds = arguments[0];
const done = arguments[arguments.length - 1];
const view = document.getElementById("stage");
const count = document.getElementById("stage-count");
const records = [];
let start = null;
function look(time) {
  if (start === null) start = time;
  records.push({ page: time, background: getComputedStyle(view).backgroundColor, countColor: getComputedStyle(count).color,
    count: count.textContent });
  if (time - start < seconds * 1000) requestAnimationFrame(look);
  else done({ records: records, shown: window.metronome.shown.filter((b) => b.page >= start) });
}
requestAnimationFrame(look);
"""

STAGE_LAYOUT = """
function figures(id) {
  const style = getComputedStyle(document.getElementById(id));
  const context = document.createElement("canvas").getContext("2d");
  context.font = style.fontWeight + " " + style.fontSize + " " + style.fontFamily;
  const metrics = context.measureText("0123456789");
  return metrics.actualBoundingBoxAscent + metrics.actualBoundingBoxDescent;
}
const root = document.documentElement;
return { innerWidth: window.innerWidth, innerHeight: window.innerHeight, scrollWidth: root.scrollWidth,
  scrollHeight: root.scrollHeight, countFigures: figures("stage-count"), tempoFigures: figures("stage-bpm"),
  stageShown: !document.getElementById("stage").hidden, bodyStage: document.body.classList.contains("stage"),
  url: location.search, background: getComputedStyle(document.getElementById("stage")).backgroundColor };
"""

WAKE = "const w = window.metronome.stage.wake; return { requests: w.requests, releases: w.releases, held: w.held, " \
    "supported: w.supported, error: w.error, note: document.getElementById('stage-wake').hidden ? null : " \
    "document.getElementById('stage-wake').textContent, state: document.getElementById('stage-state').textContent };"


def wait_for(driver, script, seconds=3):
    deadline = time.time() + seconds
    while time.time() < deadline and not driver.execute_script(script):
        time.sleep(0.02)
    return driver.execute_script(script)


def stage():
    report = {"views": [], "wake": {}, "toggles": {}, "screenshots": {}}
    for width, height, phone in [(360, 640, True), (1280, 800, False)]:
        driver = browser(width, height, phone)
        try:
            driver.set_script_timeout(15)
            for scheme in ["light", "dark"]:
                for motion in (["no-preference", "reduce"] if phone and scheme == "light" else ["no-preference"]):
                    media(driver, prefers_color_scheme=scheme, prefers_reduced_motion=motion)
                    driver.get(URL + "?stage=1")
                    ready(driver)
                    time.sleep(0.5)
                    view = {"width": width, "height": height, "scheme": scheme, "motion": motion}
                    view["layout"] = driver.execute_script(STAGE_LAYOUT)
                    view.update(driver.execute_async_script(STAGE_FRAMES, 2.5))
                    report["views"].append(view)
            if phone:
                # Screenshots of the stage: one taken inside a beat's flash (the view flashing before and after the
                # capture), one between beats (plain before and after).
                media(driver, prefers_color_scheme="light", prefers_reduced_motion="no-preference")
                driver.get(URL + "?stage=1")
                ready(driver)
                flashing = "return document.getElementById('stage').className"
                wait_for(driver, "return document.getElementById('stage-count').textContent.includes('.')")
                for _ in range(60):
                    if len(report["screenshots"]) == 2:
                        break
                    before = driver.execute_script(flashing)
                    name = "at a beat" if before.startswith("flash") else "between beats"
                    if name in report["screenshots"]:
                        time.sleep(0.03)
                        continue
                    path = os.path.join(ARTIFACTS, "web-stage-%dx%d-%s.png" % (
                        width, height, "beat" if name == "at a beat" else "between"))
                    driver.save_screenshot(path)
                    if driver.execute_script(flashing) == before:
                        report["screenshots"][name] = path
                # The wake lock: held while playing, released on a stop, held again on play.
                wait_for(driver, "return window.metronome.stage.wake.held")
                wake = {"playing": driver.execute_script(WAKE)}
                send("/metronome/stop")
                until_state(lambda s: s["state"] == "stopped")
                wait_for(driver, "return !window.metronome.stage.wake.held")
                wake["stopped"] = driver.execute_script(WAKE)
                send("/metronome/play")
                until_state(lambda s: s["state"] == "playing")
                wait_for(driver, "return window.metronome.stage.wake.held")
                wake["playingAgain"] = driver.execute_script(WAKE)
                report["wake"] = wake
                # The button, the s key and Esc; the URL follows.
                driver.get(URL)
                ready(driver)
                toggles = {"start": driver.execute_script(STAGE_LAYOUT)}
                click(driver, "stage-on")
                toggles["button"] = driver.execute_script(STAGE_LAYOUT)
                driver.find_element("tag name", "body").send_keys(Keys.ESCAPE)
                toggles["escape"] = driver.execute_script(STAGE_LAYOUT)
                driver.find_element("tag name", "body").send_keys("s")
                toggles["key"] = driver.execute_script(STAGE_LAYOUT)
                report["toggles"] = {name: {"stage": value["bodyStage"], "url": value["url"]}
                                     for name, value in toggles.items()}
        finally:
            driver.quit()
    return report


def page_clock(driver):
    """CLOCK_MONOTONIC nanoseconds less the page's performance.now() in nanoseconds, from the fastest of 40 calls into
    the page bracketed by this process's clock (Python's time.monotonic_ns), with that call's round trip."""
    best = None
    for _ in range(40):
        before = time.monotonic_ns()
        page = driver.execute_script("return performance.now()")
        after = time.monotonic_ns()
        if best is None or after - before < best["trip"]:
            best = {"trip": after - before, "offset": (before + after) / 2 - page * 1e6}
    return best


PRESS = """
const time = performance.now();
document.getElementById(arguments[0]).click();
return time;
"""


def latency():
    presses = int(os.environ.get("METRONOME_WEB_LATENCY_PRESSES", "5"))
    rng = random.Random(7)
    driver = browser(1280, 800, False)
    try:
        driver.get(URL)
        ready(driver)
        before = page_clock(driver)
        times = []
        for _ in range(presses):
            driver.execute_script(PRESS, "stop")
            until_state(lambda s: s["state"] == "stopped")
            time.sleep(0.5 + rng.random() * 0.5)
            times.append(driver.execute_script(PRESS, "play"))
            # Two beats at 120 BPM heard after each press, for the line that places the clicks on the host clock.
            time.sleep(0.8)
        return {"presses": times, "shown": driver.execute_script("return window.metronome.shown"),
                "clockBefore": before, "clockAfter": page_clock(driver)}
    finally:
        driver.quit()


def open_pages(drivers, count):
    """Opens count pages at 1280x800, each appended to drivers as soon as it exists (so the caller quits every one
    opened, whatever fails), and waits until each has its state and a clock offset."""
    for _ in range(count):
        driver = browser(1280, 800, False)
        drivers.append(driver)
        driver.get(URL)
    for driver in drivers:
        ready(driver)


def timing():
    seconds = float(os.environ.get("METRONOME_WEB_TIMING_SECONDS", "6"))
    count = int(os.environ.get("METRONOME_WEB_TIMING_PAGES", "2"))
    drivers = []
    try:
        open_pages(drivers, count)
        before = [page_clock(driver) for driver in drivers]
        start = time.monotonic_ns()
        time.sleep(seconds)
        after = [page_clock(driver) for driver in drivers]
        pages = []
        for driver, clock_before, clock_after in zip(drivers, before, after):
            pages.append({
                "shown": driver.execute_script("return window.metronome.shown"),
                "clockBefore": clock_before, "clockAfter": clock_after,
                "offset": driver.execute_script("return window.metronome.offset"),
                "frameInterval": driver.execute_script("return window.metronome.frames.interval")})
        return {"start": start, "pages": pages}
    finally:
        for driver in drivers:
            driver.quit()


# Records, on a page, each state as shown: the page's time once its script has updated the DOM for it (a microtask
# after the assignment of window.metronome.state, in the same task), and the state's volume.
WATCH = """
const m = window.metronome;
m.watched = [];
let current = m.state;
Object.defineProperty(m, "state", {
  configurable: true,
  get() { return current; },
  set(value) { current = value; queueMicrotask(() => m.watched.push([performance.now(), value.volume])); },
});
"""

SLIDE = """
const level = document.getElementById("volume");
level.value = arguments[0];
const time = performance.now();
level.dispatchEvent(new Event("change"));
return time;
"""


def changes():
    count = int(os.environ.get("METRONOME_WEB_CHANGES", "10"))
    pages = int(os.environ.get("METRONOME_WEB_CHANGE_PAGES", "3"))
    rng = random.Random(11)
    drivers = []
    try:
        open_pages(drivers, pages)
        for driver in drivers:
            driver.execute_script(WATCH)
        before = [page_clock(driver) for driver in drivers]
        made = []
        for index in range(count):
            # 0.30, 0.31, ... 0.99, then again: each differs from the one before and from the volume at the start (1).
            value = round(0.30 + (index % 70) / 100, 2)
            if index % 2 == 0:
                made.append({"origin": "osc", "value": value, "host": time.monotonic_ns()})
                send("/metronome/volume", float(value))
            else:
                made.append({"origin": "page", "value": value, "page": drivers[0].execute_script(SLIDE, value)})
            # Until every page shows it (2 s at most). The service sends the volume as a 32-bit float: 0.3 comes
            # back as 0.30000001192…, so the match is to 1e-4, as the test's own (an exact match never held, and
            # every change waited the whole 2 s).
            deadline = time.time() + 2
            while time.time() < deadline and not all(
                    driver.execute_script(
                        "return window.metronome.watched.some((w) => Math.abs(w[1] - arguments[0]) < 1e-4)", value)
                    for driver in drivers):
                time.sleep(0.01)
            time.sleep(0.1 + rng.random() * 0.1)
        after = [page_clock(driver) for driver in drivers]
        return {"made": made, "pages": [
            {"watched": driver.execute_script("return window.metronome.watched"), "clockBefore": clock_before,
             "clockAfter": clock_after} for driver, clock_before, clock_after in zip(drivers, before, after)]}
    finally:
        for driver in drivers:
            driver.quit()


DRILL_VIEW = """
return [document.getElementById("counter").textContent, !document.getElementById("muted").hidden,
  document.getElementById("lights").classList.contains("muted"), document.getElementById("practice").hidden,
  document.getElementById("practice").textContent];
"""


def drills():
    """serve --wait with a random mute and a practice timer: the practice line before the play, then every view of
    the beat (counter, the muted note, the lights' muted look) for 3.5 s after it, each change once."""
    driver = browser(360, 740, phone=True)
    try:
        driver.get(URL)
        ready(driver)
        before = driver.execute_script(DRILL_VIEW)
        send("/metronome/play")
        views, deadline = [], time.time() + 3.5
        while time.time() < deadline:
            view = driver.execute_script(DRILL_VIEW)
            if not views or views[-1] != view[:3]:
                views.append(view[:3])
            time.sleep(0.01)
        after = driver.execute_script(DRILL_VIEW)
        return {"before": before[3:], "views": views, "after": after[3:]}
    finally:
        driver.quit()


print(json.dumps({"controls": controls, "sections": sections, "token": token, "looks": looks,
                  "timing": timing, "latency": latency, "changes": changes, "link": link,
                  "stage": stage, "setlist": setlist, "drills": drills}[SCENARIO]()))
