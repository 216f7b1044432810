"""Screenshots of the inspector's main pages for the docs, taken from a real agent run in headless Chromium.

Usage: python plugins/agi-plugin-inspector/scripts/screenshots.py [OUT_FOLDER]   (default: docs/images)

Runs ``agi run``, ``agi goals add`` and ``agi checkpoint create`` in a temporary folder (every
installed plugin loaded, so the module pages have state), starts ``agi serve --allow-chat`` on
a free port, and saves ``inspector-<page>.png`` for each page of ``PAGES``.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LINES = ["my name is Bob", "what is my name?", "12 + 30", "what is my favourite colour?", "hello there"]
PAGES = {
    "timeline": "/",
    "tick": "/ticks/2",
    "replay": "/replay?run=1",
    "goals": "/goals",
    "modules": "/modules",
    "memory": "/memory?q=what+is+my+name&k=5",
    "chat": "/chat",
}


def agi(db: Path, *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agi_core", "--db", str(db), *args],
        input=stdin, text=True, capture_output=True, timeout=600, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"agi {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def make_agent(db: Path) -> None:
    agi(db, "run", stdin="\n".join(LINES) + "\n")
    steps = ["--step", "read a book | books help", "--step", "practice daily | practice helps"]
    agi(db, "goals", "add", "learn French", *steps, "--activate")
    parent = json.loads(agi(db, "goals", "list", "--json"))[0]["id"]
    agi(db, "goals", "add", "learn the verbs", "--parent", parent, "--step", "conjugate être | the table is right")
    agi(db, "goals", "add", "read Le Petit Prince", "--parent", parent)
    agi(db, "checkpoint", "create", "after-goals")
    agi(db, "run", stdin="2 + 2\n")


def chromium() -> dict[str, str]:
    done = subprocess.run([str(ROOT / "scripts" / "install_chromium.sh")], capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "images").resolve()
    out.mkdir(parents=True, exist_ok=True)
    paths = chromium()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "agent.db"
        make_agent(db)
        server = subprocess.Popen(
            [sys.executable, "-m", "agi_core", "--db", str(db), "serve", "--port", "0", "--allow-chat"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert server.stderr is not None
        found = re.search(r"(http://\S+)/ ", server.stderr.readline())
        options = webdriver.ChromeOptions()
        options.binary_location = paths["CHROMIUM"]
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,860"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service(paths["CHROMEDRIVER"]), options=options)
        try:
            if found is None:
                raise SystemExit("agi serve did not start: " + server.stderr.read())
            for name, path in PAGES.items():
                driver.get(found.group(1) + path)
                WebDriverWait(driver, 120).until(lambda d: d.execute_script("return document.readyState") == "complete")
                driver.save_screenshot(str(out / f"inspector-{name}.png"))
                print(out / f"inspector-{name}.png")
        finally:
            driver.quit()
            server.terminate()
            server.communicate(timeout=60)


if __name__ == "__main__":
    main()
