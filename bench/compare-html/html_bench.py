#!/usr/bin/env python3
"""One trace's line of bench/compare-html/run.sh: the page's size, the time --html adds, and the browser's times.

usage: html_bench.py STRATA-COMPARE TRACE WORK_DIR ROUNDS
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def timed(argv):
    start = time.monotonic()
    subprocess.run(argv, check=True)
    return time.monotonic() - start


def browser_times(page, work):
    """First paint, the page drawn, a full and a zoomed redraw in headless Chromium (ms), or why not."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return {"browser": None, "browser_why": "no Selenium in " + sys.executable}
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        return {"browser": None, "browser_why": "no chromium or chromedriver"}
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
              "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
              f"--user-data-dir={os.path.join(work, 'profile')}"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
    try:
        start = time.monotonic()
        driver.get("file://" + os.path.abspath(page))
        loaded = time.monotonic() - start
        t = driver.execute_script("""
          const s = window.strataReport.sections[0], out = {};
          const fcp = performance.getEntriesByName('first-contentful-paint')[0];
          out.first_paint_ms = fcp ? fcp.startTime : null;
          out.drawn_ms = window.strataReport.drawnAt;
          let t = performance.now(); for (let i = 0; i < 5; ++i) s.draw(); out.redraw_ms = (performance.now() - t) / 5;
          const e = s.state.x1; s.setRange(e * 0.4, e * 0.45);
          t = performance.now(); for (let i = 0; i < 5; ++i) s.draw(); out.zoomed_redraw_ms = (performance.now() - t) / 5;
          return out;""")
        version = driver.capabilities.get("browserVersion")
    finally:
        driver.quit()
    out = {k: round(v, 1) if isinstance(v, float) else v for k, v in t.items()}
    out["load_seconds"] = round(loaded, 3)
    out["browser"] = f"chromium {version} headless"
    return out


def main():
    tool, trace, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    page, report = os.path.join(work, "page.html"), os.path.join(work, "report.json")
    base = [tool, trace, "--quiet", "--no-table", "--no-search", "--no-advice", "--cuda", "off", "--json", report]
    without, with_html = [], []
    for _ in range(rounds):
        without.append(timed(base))
        with_html.append(timed(base + ["--html", page]))
    w = json.load(open(report))["workloads"][0]
    line = {"bench": "compare_html", "trace": w["name"], "buffers": w["buffers"], "events": w["events"],
            "contenders": len(w["runs"]), "html_bytes": os.path.getsize(page),
            "compare_seconds": round(statistics.median(without), 3),
            "compare_with_html_seconds": round(statistics.median(with_html), 3),
            "html_write_seconds": round(max(0.0, statistics.median(with_html) - statistics.median(without)), 3)}
    line.update(browser_times(page, work))
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
