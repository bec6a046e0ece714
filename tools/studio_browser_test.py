#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Browser test of `beatmap studio`: headless Chromium (Debian's chromium + chromium-driver) driven by
selenium, audio muted.

It serves a copy of BeatMaps/demo-120.beatmap.json, loads the page, checks that the waveform and beats
are drawn, plays and reads back the clock and the clicks the page scheduled on the audio clock, pauses,
nudges +13 ms with the keys, saves, and checks the saved file with `beatmap validate --strict` and its
backup. Then it serves the followed demo map (demo-drift) and checks its bars and the bars button.
Leaves a screenshot in out/studio/studio.png.

Usage: tools/studio_browser_test.py BEATMAP_BINARY [--screenshot PATH]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.keys import Keys

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "studio"
passed = 0
failed = 0


def check(condition, what):
    global passed, failed
    if condition:
        passed += 1
        print(f"ok   {what}")
    else:
        failed += 1
        print(f"FAIL {what}")


def wait_for(driver, script, timeout=60, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what}")


def click_fresh(driver, selector, what, attempts=20):
    """Clicks the element `selector` names, finding it again if the page rebuilt it in between (the
    findings list is rebuilt each time the server's report comes back)."""
    for _ in range(attempts):
        try:
            driver.find_element("css selector", selector).click()
            return
        except (StaleElementReferenceException, NoSuchElementException):
            time.sleep(0.1)
    raise TimeoutError(f"could not click {what}: the page kept rebuilding it")


def find(name):
    for candidate in (shutil.which(name), f"/usr/bin/{name}", f"/usr/lib/chromium/{name}"):
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit(f"studio_browser_test: {name} not found (tools/setup.sh installs chromium and chromium-driver)")


def served_copy(name, audio):
    """A copy of BeatMaps/NAME.beatmap.json and its audio in OUT, the map naming the copy beside it."""
    map_path = OUT / f"{name}.beatmap.json"
    shutil.copy(ROOT / "Audio" / audio, OUT / audio)
    text = (ROOT / "BeatMaps" / f"{name}.beatmap.json").read_text()
    map_path.write_text(text.replace(f'"../Audio/{audio}"', f'"{audio}"'))
    return map_path


def browser(size):
    """Headless Chromium, audio muted, at `size` ("W,H")."""
    options = webdriver.ChromeOptions()
    options.binary_location = find("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio",
                 "--autoplay-policy=no-user-gesture-required", "--disable-gpu", f"--window-size={size}",
                 "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(find("chromedriver")), options=options)


def stop(server):
    """Stops the studio; its exit status and standard error."""
    server.terminate()
    try:
        _, err = server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        _, err = server.communicate()
    return server.returncode, err


def followed_map(binary, size):
    """The page on the shipped followed map (demo-drift: a segment per beat, the meter on the segments
    that start a bar): the readout counts every beat in a bar and shows the meter its beats count on
    in, and the bars button and the meter at the playhead act on the whole followed run (session 99:
    the button was refused as "too short to move its bar lines", the meter changed one bar)."""
    map_path = served_copy("demo-drift", "demo-drift.ogg")
    server = subprocess.Popen([binary, "studio", str(map_path), "--no-open"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        url = server.stdout.readline().strip()
        driver = browser(size)
        driver.get(url)
        wait_for(driver, "return window.beatmapStudio && window.beatmapStudio.ready", what="the followed map's page")
        body = driver.find_element("tag name", "body")
        body.send_keys(Keys.ARROW_RIGHT)  # 5 s in, then two beats on: the second beat of a bar, whose
        body.send_keys(".")               # segment gives no meter of its own
        body.send_keys(".")
        time.sleep(0.3)
        bar = driver.find_element("id", "bar-readout").text
        check(bar.startswith("bar ") and bar.endswith(".2"), f"a followed map's beat has its place in the bar ({bar!r})")
        meter = driver.execute_script("return document.getElementById('meter').value")
        check(meter == "4", f"the meter shown is the one the beats count on in ({meter!r})")
        before = driver.execute_script("return window.beatmapStudio.mapText()")
        driver.find_element("id", "phase-forward").click()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and driver.execute_script(
                "return window.beatmapStudio.mapText()") == before:
            time.sleep(0.1)
        before = json.loads(before)
        after = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        down = [s["time"] for s in after["tempo"] if s.get("beatsPerBar")]
        check(after["tempo"] != before["tempo"] and after["beats"] == before["beats"] and len(down) >= 10,
              f"bars ▶ moves the whole followed run's bar lines, the beats unchanged ({len(down)} downbeat segments)")
        message = driver.find_element("id", "message").text
        check("too short" not in message, f"no refusal ({message!r})")
    finally:
        if driver is not None:
            driver.quit()
        code, err = stop(server)
    check(code == 0, f"the followed map's server stops cleanly (exit {code})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("beatmap")
    parser.add_argument("--screenshot", default=str(OUT / "studio.png"))
    parser.add_argument("--size", default="1280,860")
    args = parser.parse_args()

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    original = json.loads((ROOT / "BeatMaps" / "demo-120.beatmap.json").read_text())
    map_path = served_copy("demo-120", "demo-120.ogg")
    before = map_path.read_bytes()

    server = subprocess.Popen(
        [args.beatmap, "studio", str(map_path), "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    driver = None
    try:
        url = server.stdout.readline().strip()
        check(url.startswith("http://127.0.0.1:") and "#token=" in url, f"first line is the URL ({url[:40]}…)")

        driver = browser(args.size)
        driver.get(url)
        wait_for(driver, "return window.beatmapStudio && window.beatmapStudio.ready", what="the page to load the audio")

        # It draws: the detail canvas has waveform and beat-line pixels.
        drawn = driver.execute_script("""
            const c = document.getElementById('detail'); const g = c.getContext('2d');
            const d = g.getImageData(0, 0, c.width, c.height).data; let wave = 0, beat = 0;
            for (let i = 0; i < d.length; i += 4) {
              if (d[i] === 0x4a && d[i+1] === 0x6f && d[i+2] === 0x8c) wave++;
              if ((d[i] === 0xff && d[i+1] === 0xb3 && d[i+2] === 0x47) || (d[i+1] > 150 && d[i+2] > 200 && d[i] < 120)) beat++;
            }
            return {wave, beat, width: c.width, height: c.height};""")
        check(drawn["wave"] > 1000, f"the waveform is drawn ({drawn['wave']} pixels)")
        check(drawn["beat"] > 500, f"beats are drawn ({drawn['beat']} pixels)")
        # The first check also detects the audio's onsets (kept for the session), so it may take a moment.
        wait_for(driver, "return window.beatmapStudio.findings() !== null", 60, "the first findings")
        findings = driver.execute_script("return window.beatmapStudio.findings()")
        check(findings is not None and findings["errors"] == 0, "the findings panel shows the validator's result")

        # Play: the clock runs on the audio clock and clicks are scheduled ahead on it.
        body = driver.find_element("tag name", "body")
        body.send_keys(" ")
        time.sleep(2.0)
        first = driver.execute_script("return window.beatmapStudio.clock()")
        time.sleep(0.5)
        second, clicks, lookahead = driver.execute_script(
            "const s = window.beatmapStudio; return [s.clock(), s.scheduledClicks(), s.lookahead]")
        check(first["isPlaying"], f"playing (context {first['contextState']}, {first['sampleRate']} Hz)")
        advanced = second["contextTime"] - first["contextTime"]
        check(0.3 < advanced < 0.9, f"the audio clock advances ({advanced:.3f} s in 0.5 s)")
        elapsed = second["contextTime"] - second["playbackStartTime"]
        check(1.5 < elapsed < 3.0, f"elapsed = now − start ({elapsed:.3f} s)")
        check(len(clicks) >= 4, f"clicks scheduled ({len(clicks)})")
        beats = original["beats"]
        exact = all(abs(c["when"] - (second["playbackStartTime"] + c["beat"])) < 1e-6 for c in clicks)
        check(exact, "every click is at start + beat time on the audio clock")
        indices = [c["index"] for c in clicks]
        check(indices == list(range(indices[0], indices[0] + len(indices))), "one click per beat, in order")
        check(all(abs(c["beat"] - beats[c["index"]]) < 1e-9 for c in clicks), "the clicks' beats are the map's")
        ahead = [c["when"] - c["scheduledAt"] for c in clicks]
        check(all(0 <= a <= lookahead + 0.1 for a in ahead),
              f"clicks are scheduled 0…{lookahead * 1000:.0f} ms ahead (at most {max(ahead) * 1000:.0f} ms)")
        # At the moment of reading, every beat up to (clock now + look-ahead − one tick) is scheduled and
        # none past (clock now + look-ahead).
        now = second["contextTime"] - second["playbackStartTime"]
        scheduled = {c["index"] for c in clicks}
        due = [i for i, b in enumerate(beats) if b <= now + lookahead - 0.06]
        early = [c for c in clicks if c["beat"] > now + lookahead + 1e-6]
        check(set(due) <= scheduled and not early,
              f"at {now:.3f} s the beats up to {now + lookahead:.3f} s are scheduled, none later "
              f"(last {clicks[-1]['beat']:.2f} s)")

        # Pause: the position is saved and the clock stops.
        body.send_keys(" ")
        time.sleep(0.3)
        paused = driver.execute_script("return window.beatmapStudio.clock()")
        time.sleep(0.3)
        still = driver.execute_script("return window.beatmapStudio.clock()")
        check(not paused["isPlaying"] and paused["savedPosition"] == still["savedPosition"],
              f"paused at {paused['savedPosition']:.3f} s and holds")

        # Nudge +1 +1 +1 +10 ms with the keys, then save with `s`.
        for key in ("+", "+", "+", Keys.ARROW_UP):
            ActionChains(driver).send_keys(key).perform()
            wait_for(driver, "return !document.querySelector('#message').textContent.startsWith('saving')", 5)
            time.sleep(0.15)
        nudge = wait_for(driver, "const n = window.beatmapStudio.nudgeMs(); return n === 13 ? n : null", 10,
                         "the nudge to reach 13 ms")
        check(nudge == 13, "nudge +13 ms")
        page_map = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        check(abs(page_map["beats"][0] - (beats[0] + 0.013)) < 1e-9, "the page's map moved by 13 ms")
        body.send_keys("s")
        saved = wait_for(driver, "return window.beatmapStudio.lastSave()", 20, "the save")
        check(saved["saved"].endswith("demo-120.beatmap.json"), "saved through PUT /api/map")
        result = json.loads(map_path.read_text())
        check(abs(result["beats"][0] - (beats[0] + 0.013)) < 1e-9 and abs(result["tempo"][0]["time"] - 0.513) < 1e-9,
              "the saved file is the nudged map")
        backup = Path(str(map_path) + ".bak")
        check(backup.exists() and backup.read_bytes() == before, "the original is kept as .bak")
        validate = subprocess.run([args.beatmap, "validate", "--strict", str(map_path)], capture_output=True, text=True)
        check(validate.returncode == 0, f"beatmap validate --strict passes: {validate.stdout.strip().splitlines()[-1]}")

        # Loop the bar at the playhead: the clock folds into it and the clicks repeat its beats.
        body.send_keys("l")
        loop = wait_for(driver, "return window.beatmapStudio.loop()", 5, "the loop")
        check(abs((loop["end"] - loop["start"]) - 2.0) < 1e-6, f"loop one 4/4 bar {loop['start']:.3f}–{loop['end']:.3f} s")
        body.send_keys(" ")
        time.sleep(3.0)
        looped, loop_clicks = driver.execute_script(
            "const s = window.beatmapStudio; return [s.clock(), s.scheduledClicks()]")
        check(loop["start"] <= looped["position"] < loop["end"], f"the playhead stays in the loop ({looped['position']:.3f} s)")
        wrapped = [c for c in loop_clicks if c["unwrapped"] >= loop["end"] - 1e-9]
        check(len(wrapped) >= 2 and all(loop["start"] - 1e-9 <= c["beat"] < loop["end"] for c in wrapped)
              and all(abs(c["when"] - (looped["playbackStartTime"] + c["unwrapped"])) < 1e-6 for c in wrapped),
              f"clicks of the second pass repeat the bar's beats on the audio clock ({len(wrapped)})")
        # Tap along: six taps half a second apart give about 120 BPM.
        # (Key events from the page's own timer: WebDriver's own key sending is too uneven to tap with.)
        # A tap is read on the audio clock when the timer fires, and a loaded machine can fire one late
        # (a CI run beside other work once read 140 BPM), so up to three rounds are tapped; after over
        # 2 s without a tap the page starts a new list.
        for attempt in range(3):
            driver.execute_script("""for (let i = 0; i < 6; i++) setTimeout(() =>
                document.dispatchEvent(new KeyboardEvent('keydown', {key: 't', bubbles: true})), 500 * i);""")
            time.sleep(3.2)
            fit = driver.execute_script("return window.beatmapStudio.tapFit()")
            if fit is not None and 110 < fit["bpm"] < 130:
                break
            time.sleep(2.2)
        check(fit is not None and 110 < fit["bpm"] < 130,
              f"tap tempo {fit and round(fit['bpm'], 1)} BPM" + (f" (round {attempt + 1})" if attempt else ""))
        body.send_keys(" ")
        body.send_keys("l")
        wait_for(driver, "return window.beatmapStudio.loop() === null", 5, "the loop to stop")

        # Metric level ×2 then ½ through the server's edits, then undo both.
        count = len(beats)
        driver.find_element("xpath", "//span[@id='metric-buttons']/button[starts-with(., '×2')]").click()
        wait_for(driver, f"return JSON.parse(window.beatmapStudio.mapText()).beats.length > {count}", 10, "×2")
        doubled = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        check(len(doubled["beats"]) == 2 * count and doubled["tempo"][0]["bpm"] == 240, "×2 doubles beats and tempo")
        driver.find_element("xpath", "//span[@id='metric-buttons']/button[starts-with(., '½')]").click()
        wait_for(driver, f"return JSON.parse(window.beatmapStudio.mapText()).beats.length === {count}", 10, "½")
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(driver, "return !window.beatmapStudio.dirty()", 10, "undo to the saved map")

        # Every beat half a beat later and back (the button, then the key), then undo both.
        current = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        first = current["beats"][0]
        driver.find_element("id", "half-beat").click()
        wait_for(driver, f"return JSON.parse(window.beatmapStudio.mapText()).beats[0] > {first} + 0.2", 10, "½ beat")
        shifted = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        check(abs(shifted["beats"][0] - (first + 0.25)) < 1e-6
              and shifted["tempo"][0]["bpm"] == current["tempo"][0]["bpm"] == 120,
              f"½ later moves every beat by half a beat of 120 BPM and keeps the tempo "
              f"({first:.3f} → {shifted['beats'][0]:.3f} s)")
        # The findings read the audio: the map half a beat out gets audio-offbeat, whose fix button puts
        # it back.
        wait_for(driver, "const f = window.beatmapStudio.findings(); return f && f.findings.some("
                         "x => x.rule === 'audio-offbeat' && x.fix)", 30, "the audio-offbeat finding")
        click_fresh(driver, "#findings li[data-rule='audio-offbeat'] button.fix", "the audio-offbeat fix")
        wait_for(driver, f"return JSON.parse(window.beatmapStudio.mapText()).beats[0] < {first} + 0.1", 10, "the fix")
        fixed = json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))
        check(abs(fixed["beats"][0] - first) < 1e-6,
              "a map half a beat out gets audio-offbeat in the findings, and its fix button puts the beats back "
              f"({fixed['beats'][0]:.3f} s)")
        body.send_keys("h")
        wait_for(driver, f"return JSON.parse(window.beatmapStudio.mapText()).beats[0] > {first} + 0.2", 10, "h")
        for _ in range(3):
            ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(driver, "return !window.beatmapStudio.dirty()", 10, "undo to the saved map")

        # A nudge that moves beats before 0 s drops them, as `beatmap edit --nudge` does (session 98;
        # a save the validator refuses is held by the unit tests of the shared saver).
        count = len(json.loads(driver.execute_script("return window.beatmapStudio.mapText()"))["beats"])
        for _ in range(60):
            driver.execute_script("document.querySelector('[data-nudge=\"-10\"]').click()")
        wait_for(driver, "const m = JSON.parse(window.beatmapStudio.mapText()); "
                         f"return m.beats.length < {count} && m.beats[0] >= 0", 20, "the beats before 0 s dropped")
        check(True, "a nudge 600 ms earlier drops the beats it moves before 0 s")
        for _ in range(60):
            ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(driver, "return !window.beatmapStudio.dirty()", 20, "undo to the saved map")

        # A map that follows the music (a segment a beat, beatsPerBar on the downbeats' segments only, as
        # `analyze` writes them): the page counts its bars as the library does and reads its tempo as one
        # moving stretch (session 99: it left three beats of four out of any bar and drew a label per beat).
        followed = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            import('/clock.js').then((m) => {
              const tempo = [{time: 0, bpm: 120, beatsPerBar: 4}], beats = [0];
              let t = 0.5, bpm = 120;
              for (let i = 1; i < 13; i++) {
                bpm += 1;
                tempo.push(i % 4 === 0 ? {time: t, bpm, beatsPerBar: 4} : {time: t, bpm});
                beats.push(t);
                t += 60 / bpm;
              }
              const map = {tempo, beats};
              done({bars: m.barPositions(map).map((b) => b && [b.bar, b.beat]),
                    stretches: m.tempoStretches(map).map((s) => m.stretchLabel(s))});
            }, (error) => done({error: String(error)}));""")
        check(followed.get("bars") == [[1 + i // 4, 1 + i % 4] for i in range(13)],
              f"a followed map's beats are counted in bars as the library counts them ({followed})")
        check(followed.get("stretches") == ["120–132 BPM over 13 segments, 4 per bar"],
              f"a followed map's tempo is one stretch ({followed.get('stretches')})")

        # A picture: seek to a bar and zoom so beats, bars and the playhead show.
        driver.execute_script("document.querySelector('#message').textContent = ''")
        driver.execute_script("window.scrollTo(0, 0)")
        body.send_keys(Keys.ARROW_RIGHT)
        time.sleep(0.3)
        Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(args.screenshot)
        check(Path(args.screenshot).stat().st_size > 10_000, f"screenshot {args.screenshot}")
        # The refused save's 422 is logged by the browser as a failed load; anything else is an error.
        logs = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"
                and not (entry.get("source") == "network" and "/api/map" in entry.get("message", "")
                         and "422" in entry.get("message", ""))]
        check(not logs, "no errors in the page's console" + (f": {logs[:2]}" if logs else ""))
    finally:
        if driver is not None:
            driver.quit()
        code, err = stop(server)
    check(code == 0, f"the server stops cleanly on SIGTERM (exit {code})")
    if err.strip():
        print(err.strip())
    followed_map(args.beatmap, args.size)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
