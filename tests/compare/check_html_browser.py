#!/usr/bin/env python3
"""strata-compare --html's page in a real browser: Debian's chromium, headless, driven by Selenium.

Usage: check_html_browser.py STRATA-COMPARE SCRATCH_DIR (TRACE.csv | --mlp STRATA-MLP) [--screenshot PNG]
                             [--fit STRATA-FIT WORKLOAD] [COMPARE-OPTION...]

--mlp: TRACE is the main job's, made as scripts/run.sh makes it: strata-mlp --alloc-trace (its default run on the
model) writes it, and the page is strata-compare's at the service's heap with 4 KiB GPU pages (run.sh's options).

Writes the page for TRACE (with the options given, default --no-search --option page_bytes=4096), opens it from a
file with every connection refused (a proxy at a closed port, no host name resolving) and checks:
- no request but the page's own file (Chrome's performance log), no console error;
- every contender's memory series (in use and reserved, data-contender on the SVG paths), and an OOM marker for every
  run the report says failed;
- hover: over an OOM marker the tooltip names its kind, over a buffer in the buffer view it names the buffer;
- zoom: the + button and the mouse wheel narrow the visible range (data-x0, data-x1); a redraw's time is printed
  (bench/compare-html holds it to account, not this test);
- the screenshot is not blank (many colors, most of it not white), drawn back in the page from a data: URL;
- a merged report whose workload name closes the data's <script> element and opens another: the name shown as
  text, the injected script never run, and in place of a buffer view a note that says why a merged report has none;
- a PyTorch snapshot with stacks (check_frames.py's): a hovered buffer's tooltip holds its frame label, and no
  element is made from the frame text;
- two tenants on one device (--tenant jax-growth:TRACE --tenant torch:TRACE): Strata's and the GPU's buffer views, a hovered
  buffer named by its tenant;
- with --fit, strata-fit --html's page of WORKLOAD: a heat map cell per device and policy, and a click on a failing
  cell marks that policy's strip in that device's run.
Exit status 77, with the reason, where Selenium, chromium or chromedriver is missing: skipped, never passed.
"""
import base64
import json
import os
import pickle
import shutil
import subprocess
import sys
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_frames  # noqa: E402  (its snapshot with stacks)

HOSTILE = "</script><script>window.pwned=1</script><!--<script>"


def skip(why):
    print(f"check_html_browser: skipped: {why}")
    sys.exit(77)


def fail(why):
    sys.exit(f"check_html_browser: {why}")


def find(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    tool, scratch, trace = args[:3]
    rest = args[3:]
    mlp = None
    if trace == "--mlp":
        mlp, rest = rest[0], rest[1:]
    screenshot = None
    if rest[:1] == ["--screenshot"]:
        screenshot, rest = rest[1], rest[2:]
    fit = None
    if rest[:1] == ["--fit"]:
        fit, rest = rest[1:3], rest[3:]
    options = rest or ["--no-search", "--option", "page_bytes=4096"]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
        from selenium.webdriver.common.by import By
    except ImportError as e:
        skip(f"no Selenium in {sys.executable} ({e}; scripts/setup.sh --python installs it)")
    browser = find("chromium", "chromium-browser")
    driver_path = find("chromedriver")
    if not browser or not driver_path:
        skip("no chromium or chromedriver on PATH (Debian: apt-get install chromium chromium-driver; scripts/setup.sh)")

    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    if mlp:
        trace, options = main_job(mlp, scratch), main_job_options(scratch) + rest
    page = os.path.join(scratch, "report.html")
    t0 = time.monotonic()
    out = subprocess.run([tool, trace, "--quiet", "--no-table", *options, "--html", page], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        fail(f"strata-compare exited {out.returncode}: {out.stderr}")
    write_s = time.monotonic() - t0
    # A report whose workload name closes the data's <script> element and opens one of its own, merged into a page.
    hostile_page = os.path.join(scratch, "hostile.html")
    report = os.path.join(scratch, "report.json")
    subprocess.run([tool, trace, "--quiet", "--no-table", "--no-search", "--no-advice", "--contenders", "strata,jax",
                    "--json", report], check=True)
    doc = json.load(open(report))
    doc["workloads"][0]["name"] = HOSTILE
    json.dump(doc, open(report, "w"))
    subprocess.run([tool, "--merge", report, "--no-table", "--html", hostile_page], check=True)
    # A PyTorch snapshot with stacks (check_frames.py's): each buffer's label in its hover, hostile text as text.
    frames_page = os.path.join(scratch, "frames.html")
    snap = os.path.join(scratch, "frames.pickle")
    with open(snap, "wb") as f:
        pickle.dump(check_frames.snapshot(), f, protocol=4)
    subprocess.run([tool, snap, "--quiet", "--no-table", "--no-search", "--contenders", "strata,torch", "--capacity",
                    "64M", "--html", frames_page], check=True)
    # Two tenants on one device: their buffer views.
    tenant_page = os.path.join(scratch, "tenants.html")
    subprocess.run([tool, "--tenant", "jax-growth:" + trace, "--tenant", "torch:" + trace, "--quiet", "--no-table",
                    "--no-search", "--capacity", "2.0x", "--option", "page_bytes=4096", "--html", tenant_page],
                   check=True)
    fit_page = os.path.join(scratch, "fit.html")
    if fit:
        subprocess.run([fit[0], fit[1], "--quiet", "--no-table", "--no-search", "--devices", "a100-40g,a100-80g",
                        "--html", fit_page], check=True)

    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,2000",
              "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run", "--no-default-browser-check",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-default-apps", "--disable-extensions", "--metrics-recording-only",
              # Any connection the page tried would go to a closed port, and no name resolves.
              "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
              "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={os.path.join(scratch, 'profile')}"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    # The driver named: Selenium Manager, which would look for one on the network, never runs.
    service = Service(executable_path=driver_path, log_output=os.path.join(scratch, "chromedriver.log"))
    try:
        driver = webdriver.Chrome(service=service, options=opts)
    except Exception as e:  # a browser that cannot start here (no display libraries, ...): not a pass
        skip(f"chromium did not start: {str(e).splitlines()[0]}")
    try:
        summary = check(driver, page, scratch, screenshot, write_s, By, ActionChains, ScrollOrigin)
        # The hostile name: shown as text, its script never run, no console error.
        driver.get("file://" + os.path.abspath(hostile_page))
        ready = driver.execute_script("return document.body.getAttribute('data-ready')")
        shown = driver.find_element(By.CSS_SELECTOR, "section.workload h2").text
        pwned = driver.execute_script("return window.pwned === undefined ? null : window.pwned")
        scripts = len(driver.find_elements(By.TAG_NAME, "script"))
        if ready != "true" or shown != HOSTILE or pwned is not None or scripts != 2:
            fail(f"the hostile name: ready {ready}, shown {shown!r}, pwned {pwned}, {scripts} scripts")
        # A merged report keeps no placements: the page says so and why, where the buffer view would be.
        note = driver.find_elements(By.CSS_SELECTOR, "section.workload p.no-buffers")
        if len(note) != 1 or "--merge" not in note[0].text or driver.find_elements(By.CSS_SELECTOR, ".buffer-view"):
            fail(f"the merged page's buffer note: {[n.text for n in note]}")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            fail(f"console errors on the hostile page: {errors}")
        summary += check_tenants(driver, tenant_page, By, ActionChains)
        summary += check_frames_page(driver, frames_page, By, ActionChains)
        if fit:
            summary += check_fit(driver, fit_page, By)
        print(summary)
    finally:
        driver.quit()


def main_job(mlp, scratch):
    """The main job's allocation trace, as scripts/run.sh writes out/mlp-allocs.csv (no waveform: not drawn here)."""
    csv = os.path.join(scratch, "mlp-allocs.csv")
    out = subprocess.run([mlp, "--alloc-trace", csv, "--trace", "none", "--report",
                          os.path.join(scratch, "mlp-report.json"), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        fail(f"strata-mlp exited {out.returncode}: {out.stderr}")
    return csv


def main_job_options(scratch):
    """scripts/run.sh's strata-compare options: the service's heap (the two tenants' quotas), 4 KiB GPU pages."""
    r = json.load(open(os.path.join(scratch, "mlp-report.json")))
    return ["--capacity", str(r["serving_quota_bytes"] + r["batch_quota_bytes"]), "--option", "page_bytes=4096"]


def hover_largest(driver, canvas, view, ActionChains, containing=None):
    """Moves the pointer onto the largest placement of buffer view `view` (of those whose label holds `containing`,
    when given); returns that buffer's label (or None)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas)
    dx, dy, label = driver.execute_script("""
      const sec = window.strataReport.sections[0], v = sec.views[arguments[0]], s = sec.state;
      const bl = window.strataReport.data.workloads[0].buffer_list, want = arguments[1];
      const labelOf = (b) => bl.label && bl.label[b] >= 0 ? bl.label_text[bl.label[b]] : null;
      const p = v.spans.p, c = v.canvas; let best = -1, area = 0;
      for (let i = 0; i < p.b.length; ++i) {
        if (want !== null && !(labelOf(p.b[i]) || '').includes(want)) continue;
        const a = (p.t1[i] - p.t0[i]) * p.n[i]; if (a > area) { area = a; best = i; } }
      const x = ((p.t0[best] + p.t1[best]) / 2 - s.x0) / (s.x1 - s.x0) * c.clientWidth;
      const y = c.clientHeight - (p.o[best] + p.n[best] / 2) / v.spans.extent * c.clientHeight;
      return [x - c.clientWidth / 2, y - c.clientHeight / 2, labelOf(p.b[best])];""", view, containing)
    ActionChains(driver).move_to_element_with_offset(canvas, int(dx), int(dy)).perform()
    return label


def check_frames_page(driver, page, By, ActionChains):
    """A snapshot with stacks: hovering a buffer shows its label; the hostile one's markup stays text."""
    driver.get("file://" + os.path.abspath(page))
    if driver.execute_script("return document.body.getAttribute('data-ready')") != "true":
        fail("the frames page never finished drawing")
    canvas = driver.find_elements(By.CSS_SELECTOR, ".buffer-view canvas")
    if not canvas:
        fail("the frames page has no buffer view")
    label = hover_largest(driver, canvas[0], 0, ActionChains)
    tip = driver.find_element(By.ID, "tooltip")
    if not label or not tip.is_displayed() or label not in tip.text:
        fail(f"hovering a buffer with frames shows {tip.text!r} (want its label {label!r})")
    hostile = hover_largest(driver, canvas[0], 0, ActionChains, "<b onmouseover=x>")
    if not hostile or not tip.is_displayed() or hostile not in tip.text.split("\n"):
        fail(f"hovering the buffer with hostile frame text shows {tip.text!r} (want {hostile!r} as text)")
    injected = driver.execute_script("return document.querySelectorAll('b').length")
    scripts = len(driver.find_elements(By.TAG_NAME, "script"))
    if injected or scripts != 2:
        fail(f"the frames page holds {injected} <b> elements made from frame text and {scripts} scripts (want 2)")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors on the frames page: {errors}")
    return "; a PyTorch snapshot's frame label in its buffer's hover"


def check_tenants(driver, page, By, ActionChains):
    """A tenant page: buffer views of both tenants' buffers, a hovered one named by its tenant."""
    driver.get("file://" + os.path.abspath(page))
    if driver.execute_script("return document.body.getAttribute('data-ready')") != "true":
        fail("the tenant page never finished drawing")
    canvas = driver.find_elements(By.CSS_SELECTOR, ".buffer-view canvas")
    if len(canvas) != 2 or driver.find_elements(By.CSS_SELECTOR, "p.no-buffers"):
        fail(f"the tenant page: {len(canvas)} buffer views (want Strata's and the GPU's), or a note instead")
    want = hover_largest(driver, canvas[1], 1, ActionChains)  # the GPU view's largest buffer, and its tenant
    tip = driver.find_element(By.ID, "tooltip")
    if not tip.is_displayed() or not tip.text.startswith("gpu: jax-growth + torch: buffer ") or want not in tip.text:
        fail(f"hovering a tenant's buffer shows {tip.text!r} (want its tenant {want!r})")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors on the tenant page: {errors}")
    return "; tenants: both runs' buffer views, a hovered buffer named by its tenant; a merged page says why it has none"


def check_fit(driver, page, By):
    """strata-fit's page: the heat map's cells, and a failing cell's click marking its run's strip."""
    driver.get("file://" + os.path.abspath(page))
    fit = driver.execute_script("return window.strataReport.data.fit")
    cells = driver.find_elements(By.CSS_SELECTOR, "table.heat td[data-fits]")
    if len(cells) != len(fit["devices"]) * len(fit["policies"]):
        fail(f"strata-fit page: {len(cells)} cells for {len(fit['devices'])} devices x {len(fit['policies'])} policies")
    failing = [c for c in fit["cells"] if not c["fits"]]
    if not failing:
        fail("strata-fit page: no failing cell to follow")
    want = failing[0]
    cell = next(c for c in cells if c.get_attribute("data-device") == want["device"]
                and c.get_attribute("data-policy") == want["policy"])
    cell.click()
    picked = driver.execute_script("""
      const g = document.querySelector('g.strip.picked');
      return g ? [g.getAttribute('data-contender'), g.closest('section').querySelector('h2').textContent] : null;""")
    if picked is None or picked[0] != want["policy"] or not picked[1].endswith(" on " + want["device"]):
        fail(f"strata-fit page: clicking {want['device']}/{want['policy']} marked {picked}")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors on strata-fit's page: {errors}")
    return f"; strata-fit's heat map: {len(cells)} cells, a failing one links to its run"


def check(driver, page, scratch, screenshot, write_s, By, ActionChains, ScrollOrigin):
    url = "file://" + os.path.abspath(page)
    driver.get_log("performance")  # the start page's own loads, before the report's
    t0 = time.monotonic()
    driver.get(url)
    for _ in range(100):
        if driver.execute_script("return document.body.getAttribute('data-ready')") == "true":
            break
        time.sleep(0.05)
    else:
        fail("the page never finished drawing (no data-ready)")
    load_s = time.monotonic() - t0

    # No request but the page itself: from the page's own request on (the browser's start page may still be loading
    # its internal chrome:// resources before it), every request and failure logged.
    requests, failures, started = [], [], False
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            started = started or msg["params"]["request"]["url"] == url
            if started:
                requests.append(msg["params"]["request"]["url"])
        elif started and msg["method"] == "Network.loadingFailed":
            failures.append(msg["params"].get("errorText"))
    if requests != [url] or failures:
        fail(f"the page's requests: {requests} (want only {url}), failures: {failures}")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors: {errors}")

    data = driver.execute_script("return window.strataReport.data")
    w = data["workloads"][0]
    # What the chart drew, per contender, read in one call (one WebDriver round trip per element would take a minute).
    drawn = driver.execute_script("""
      const out = {};
      for (const e of document.querySelectorAll('svg.memory [data-contender]')) {
        const c = e.getAttribute('data-contender');
        const o = out[c] || (out[c] = {in_use: 0, reserved: 0, oom_kinds: [], ooms: 0});
        const series = e.getAttribute('data-series');
        if (series === 'in_use' || series === 'reserved') o[series] += (e.getAttribute('d') || '').length >= 10 ? 1 : 0;
        if (e.classList.contains('oom')) { o.ooms += 1; o.oom_kinds.push(e.getAttribute('data-kind')); }
      }
      return out;""")
    failed = 0
    for r in w["runs"]:
        c = r["contender"]
        d = drawn.get(c)
        if d is None or d["in_use"] != 1 or d["reserved"] != 1:
            fail(f"{c}: its in-use and reserved series are not both drawn ({d})")
        if r["completed"] == bool(d["ooms"]):
            fail(f"{c}: {'completes' if r['completed'] else 'fails'} but {d['ooms']} OOM markers drawn")
        if not r["completed"]:
            failed += 1
            if r["first_oom"]["kind"] not in d["oom_kinds"]:
                fail(f"{c}: no marker of its first OOM's kind {r['first_oom']['kind']} (drawn: {set(d['oom_kinds'])})")
    if failed == 0:
        fail("no run fails: the OOM markers and their hover are not exercised (pick a smaller capacity)")

    # Hover: an OOM marker, then a buffer in the first buffer view.
    tip = driver.find_element(By.ID, "tooltip")
    chart = driver.find_element(By.CSS_SELECTOR, "svg.memory")
    first_failed = next(r for r in w["runs"] if not r["completed"])

    def hover_oom(run):
        """Moves the pointer onto the run's first drawn OOM marker (where the page says it drew it)."""
        at = driver.execute_script("return window.strataReport.sections[0].locateOom(arguments[0])", run["contender"])
        box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]",
                                    chart)
        ActionChains(driver).move_to_element_with_offset(chart, int(at["x"] - box[0] - box[2] / 2),
                                                         int(at["y"] - box[1] - box[3] / 2)).perform()

    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", chart)
    hover_oom(first_failed)
    text = tip.text
    want = f"{first_failed['contender']}: OOM ({first_failed['ooms']['k'][0]}) at event"
    if not tip.is_displayed() or want not in text:
        fail(f"hovering an OOM marker shows {text!r} (want {want!r})")
    canvas = driver.find_elements(By.CSS_SELECTOR, ".buffer-view canvas")
    if len(canvas) < 2:
        fail(f"{len(canvas)} buffer views (want Strata's and a GPU policy's)")
    views = [c.get_attribute("data-contender") for c in canvas]
    if views[0] != "strata" or not any(v.startswith(("jax", "tf", "torch")) for v in views[1:]):
        fail(f"buffer views of {views}")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", canvas[0])
    # The centre of the largest placement of the first view, from the page's own scales.
    dx, dy = driver.execute_script("""
      const v = window.strataReport.sections[0].views[0], s = window.strataReport.sections[0].state;
      const p = v.spans.p, c = v.canvas; let best = -1, area = 0;
      for (let i = 0; i < p.b.length; ++i) { const a = (p.t1[i] - p.t0[i]) * p.n[i]; if (a > area) { area = a; best = i; } }
      const x = ((p.t0[best] + p.t1[best]) / 2 - s.x0) / (s.x1 - s.x0) * c.clientWidth;
      const y = c.clientHeight - (p.o[best] + p.n[best] / 2) / v.spans.extent * c.clientHeight;
      return [x - c.clientWidth / 2, y - c.clientHeight / 2];""")
    ActionChains(driver).move_to_element_with_offset(canvas[0], int(dx), int(dy)).perform()
    text = tip.text
    if not tip.is_displayed() or not text.startswith("strata: buffer ") or "at offset" not in text:
        fail(f"hovering a buffer shows {text!r}")

    # Zoom: the button, then the wheel, each narrows the range; one redraw's time.

    def span():
        return int(chart.get_attribute("data-x1")) - int(chart.get_attribute("data-x0"))

    whole = span()
    driver.find_element(By.CSS_SELECTOR, "button.zoom-in").click()
    time.sleep(0.2)
    after_button = span()
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(chart, 100, 0), 0, -300).perform()
    time.sleep(0.2)
    after_wheel = span()
    if not (after_button < whole and after_wheel < after_button):
        fail(f"zoom: range {whole} -> {after_button} (button) -> {after_wheel} (wheel)")
    redraw_ms = driver.execute_script("""
      const s = window.strataReport.sections[0]; const t = performance.now();
      for (let i = 0; i < 5; ++i) s.draw();
      return (performance.now() - t) / 5;""")
    # Measured and printed, not asserted: a timed assertion fails on a loaded machine (it did, in CI's company);
    # bench/compare-html is the record of how fast the page is.
    driver.find_element(By.CSS_SELECTOR, "button.zoom-reset").click()
    driver.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.2)
    # The picture shows a tooltip: Strata's without compaction, the run the text report explains first, else any.
    hover_oom(next((r for r in w["runs"] if r["contender"] == "strata-no-compact" and not r["completed"]), first_failed))
    time.sleep(0.2)

    png = driver.get_screenshot_as_png()
    shot = os.path.join(scratch, "report.png")
    with open(shot, "wb") as f:
        f.write(png)
    if screenshot:
        shutil.copyfile(shot, screenshot)
    # Not blank: drawn back into a canvas in the page (a data: URL, which its policy allows), colors counted.
    colors, nonwhite = driver.execute_async_script("""
      const done = arguments[arguments.length - 1];
      const img = new Image();
      img.onload = () => {
        const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data; const seen = new Set(); let nonwhite = 0, n = 0;
        for (let i = 0; i < d.length; i += 4 * 7) { ++n; seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
          if (d[i] < 245 || d[i + 1] < 245 || d[i + 2] < 245) ++nonwhite; }
        done([seen.size, nonwhite / n]);
      };
      img.onerror = () => done([0, 0]);
      img.src = 'data:image/png;base64,' + arguments[0];""", base64.b64encode(png).decode())
    if colors < 20 or nonwhite < 0.05:
        fail(f"the screenshot looks blank: {colors} colors, {nonwhite:.1%} not white")
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    if errors:
        fail(f"console errors: {errors}")
    size = os.path.getsize(page)
    return (f"check_html_browser: ok: {len(w['runs'])} contenders drawn, {failed} with OOM markers, hover and zoom work, "
          f"a hostile workload name shown as text, "
          f"no request but the page, no console error; page {size} bytes written in {write_s:.2f} s, "
          f"loaded in {load_s:.2f} s, redraw {redraw_ms:.1f} ms, screenshot {len(png)} bytes ({colors} colors)")


if __name__ == "__main__":
    main()
