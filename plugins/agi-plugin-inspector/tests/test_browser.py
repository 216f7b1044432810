"""The inspector in a real headless Chromium: navigation, chat, a replay divergence, XSS attempts, live ticks."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agi_core.testing import open_kernel

pytest.importorskip("selenium", reason="pip install -e 'plugins/agi-plugin-inspector[test]' (requirements-test.txt)")

from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT_S = 60
PAGES = {  # nav link -> the page's heading
    "nav-timeline": "Timeline",
    "nav-replay": "Replay",
    "nav-goals": "Goals",
    "nav-modules": "Modules",
    "nav-memory": "Memory",
    "nav-checkpoints": "Checkpoints",
    "nav-chat": "Chat",
}


def wait(browser: Any, condition: Callable[[Any], Any]) -> Any:
    # the page replaces elements as ticks arrive: an element found a moment before may be gone; look again
    ignored = (NoSuchElementException, StaleElementReferenceException)
    return WebDriverWait(browser, WAIT_S, ignored_exceptions=ignored).until(condition)


def heading(browser: Any) -> str:
    return str(browser.find_element(By.TAG_NAME, "h1").text)


def test_every_page_is_reached_from_the_navigation(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db) + "/")
    for link, title in PAGES.items():
        browser.find_element(By.ID, link).click()
        wait(browser, lambda b, title=title: heading(b).startswith(title))
        assert "here" in str(browser.find_element(By.ID, link).get_attribute("class"))
    browser.find_element(By.ID, "nav-timeline").click()
    wait(browser, lambda b: heading(b).startswith("Timeline"))
    browser.find_element(By.CSS_SELECTOR, "#tick-2 a").click()
    wait(browser, lambda b: heading(b).startswith("Tick 2"))
    assert browser.find_element(By.ID, "reply").text == "Your name is Bob."
    assert browser.find_element(By.ID, "why").text != ""
    browser.find_element(By.ID, "next").click()
    wait(browser, lambda b: heading(b).startswith("Tick 3"))
    assert browser.find_element(By.ID, "reply").text == "12 + 30 = 42"


def test_the_timeline_filters_in_the_browser(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db) + "/")
    browser.find_element(By.CSS_SELECTOR, "select[name=code] option[value=F1]").click()
    browser.find_element(By.ID, "filter").click()
    wait(browser, lambda b: "code=F1" in b.current_url)
    rows = browser.find_elements(By.CSS_SELECTOR, "#ticks tr")
    assert [row.get_attribute("id") for row in rows] == ["tick-4"]


def test_the_goal_dag_is_drawn_with_its_edge(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db) + "/goals")
    nodes = browser.find_elements(By.CSS_SELECTOR, "#goal-dag g.node")
    assert len(nodes) == 2 and len(browser.find_elements(By.CSS_SELECTOR, "#goal-dag line.edge")) == 1
    parent, child = (node.find_element(By.TAG_NAME, "rect").rect for node in nodes)
    assert child["y"] > parent["y"]  # the subgoal is drawn under its parent


def test_the_chat_box_runs_a_tick(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db, allow_chat=True) + "/chat")
    box = browser.find_element(By.ID, "chat-text")
    box.send_keys("7 + 5")
    browser.find_element(By.ID, "send").click()
    wait(browser, lambda b: "7 + 5 = 12" in b.find_element(By.ID, "conversation").text)
    assert browser.find_element(By.ID, "tick-13").text.endswith("7 + 5 = 12")
    with open_kernel(agent_db, seed="insp") as kernel:
        assert kernel.tick_count == 13


def test_the_chat_box_is_absent_when_read_only(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db) + "/chat")
    assert browser.find_elements(By.ID, "chat-form") == []
    assert "agi serve --allow-chat" in browser.find_element(By.ID, "read-only").text
    assert browser.find_element(By.ID, "mode").text == "read-only"


def test_a_replay_divergence_is_highlighted(
    dice_db: Path, dice_plugin: Any, serve: Callable[..., str], browser: Any
) -> None:
    browser.get(serve(dice_db, dice_plugin) + "/replay")
    browser.find_element(By.ID, "run-replay").click()
    result = wait(browser, lambda b: b.find_element(By.ID, "replay-result"))
    assert result.text == "REPLAY_MISMATCH tick=4 field=agent_outputs"
    highlighted = browser.find_element(By.CSS_SELECTOR, "tr.mismatch")
    assert highlighted.get_attribute("id") == "field-agent_outputs"
    assert highlighted.value_of_css_property("background-color") == "rgba(255, 205, 210, 1)"
    assert browser.find_element(By.CSS_SELECTOR, ".diff .removed").text.strip().startswith("-")
    browser.find_element(By.ID, "diverged-tick").click()
    wait(browser, lambda b: heading(b).startswith("Tick 4"))
    assert browser.find_element(By.CSS_SELECTOR, "#input pre").text == "roll"


@pytest.mark.parametrize("path", ["/", "/ticks/7", "/memory", "/memory?q=window&k=5", "/goals", "/chat"])
def test_hostile_memory_stays_text(
    agent_db: Path, serve: Callable[..., str], browser: Any, hostile: Any, path: str
) -> None:
    browser.get(serve(agent_db, allow_chat=True) + path)
    wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
    wait(browser, lambda b: not b.find_elements(By.ID, "embedding"))  # a search: the page reloads until it ran
    assert browser.execute_script("return window.__xss === undefined")  # no script, handler or onload ran
    shown = browser.find_element(By.TAG_NAME, "main").text
    assert hostile.script in shown or hostile.svg in shown  # the markup is shown as the text it is
    assert browser.find_elements(By.CSS_SELECTOR, "main script, main img, main iframe") == []


def test_a_search_page_reloads_until_the_memories_are_embedded(
    agent_db: Path, serve: Callable[..., str], browser: Any
) -> None:
    browser.get(serve(agent_db, embed_wait_s=0) + "/memory?q=what+is+my+name&k=3")
    assert browser.find_element(By.ID, "embedding").text.startswith("Embedding the agent's memories for search: ")
    scores = wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#hits td.score"))
    assert len(scores) == 3 and browser.find_elements(By.ID, "embedding") == []


def test_a_very_long_line_wraps_and_replaced_bytes_show(
    agent_db: Path, serve: Callable[..., str], browser: Any, hostile: Any
) -> None:
    base = serve(agent_db)
    browser.get(base + "/ticks/8")
    assert browser.find_element(By.CSS_SELECTOR, "#input pre").text.replace("\n", "") == hostile.long
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    browser.get(base + "/ticks/9")
    assert browser.find_element(By.CSS_SELECTOR, "#input pre").text == hostile.replaced


def test_ticks_of_agi_run_follow_appear_live(agent_db: Path, serve: Callable[..., str], browser: Any) -> None:
    browser.get(serve(agent_db) + "/")
    wait(browser, lambda b: "live" in b.find_element(By.ID, "live-status").text)
    follow = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(agent_db), "run", "--follow", "--clock-every", "0",
         "--maintain-every", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )  # fmt: skip
    try:
        assert follow.stdin is not None
        follow.stdin.write("3 + 4\n")
        follow.stdin.flush()
        row = wait(browser, lambda b: b.find_elements(By.ID, "tick-13"))[0]
        assert "3 + 4 = 7" in row.text
        assert browser.find_elements(By.CSS_SELECTOR, "#ticks tr")[0].get_attribute("id") == "tick-13"  # on top
    finally:
        follow.terminate()
        follow.communicate(timeout=60)


def test_a_filtered_timeline_gets_live_only_the_ticks_that_pass_its_filters(
    agent_db: Path, serve: Callable[..., str], browser: Any
) -> None:
    browser.get(serve(agent_db) + "/?agent=math_agent")
    wait(browser, lambda b: "live" in b.find_element(By.ID, "live-status").text)
    follow = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(agent_db), "run", "--follow", "--clock-every", "0",
         "--maintain-every", "0"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": ""},
    )  # fmt: skip
    try:
        assert follow.stdin is not None
        follow.stdin.write("my name is Ann\n3 + 4\n")  # tick 13 (another agent), tick 14 (math_agent)
        follow.stdin.flush()
        row = wait(browser, lambda b: b.find_elements(By.ID, "tick-14"))[0]
        assert "3 + 4 = 7" in row.text
        shown = [row.get_attribute("id") for row in browser.find_elements(By.CSS_SELECTOR, "#ticks tr")]
        assert shown == ["tick-14", "tick-12", "tick-3"]  # tick 13 did not pass the filter
    finally:
        follow.terminate()
        follow.communicate(timeout=60)
