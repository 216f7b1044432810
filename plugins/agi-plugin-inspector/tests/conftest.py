"""An agent with hostile memories, the inspector served by a real uvicorn on a free port, and headless Chromium."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agi_core.cli.main import CliState
from agi_core.hookspecs import hookimpl
from agi_core.reasoning import AgentReply
from agi_core.testing import builtin_plugins, open_kernel

ROOT = Path(__file__).resolve().parents[3]
SEED = "insp"

# Hostile content stored in memory: each must render as text, never run.
SCRIPT = "<script>window.__xss = 1</script>"
IMG = '<img src=x onerror="window.__xss = 2">'
SVG = '<svg onload="window.__xss = 3"></svg>'
LONG = "w" * 60_000  # one 60,000-character word: no space to wrap at
REPLACED = b"caf\xe9 \xff\xfe bytes".decode("utf-8", "replace")  # what agi run makes of non-UTF-8 input


def make_agent(db: Any, *extra: Any) -> Any:
    """A real agent: conversation, an F1 miss, arithmetic, hostile facts and inputs, two goals, a checkpoint."""
    with open_kernel(db, *extra, seed=SEED) as kernel:
        kernel.tick("my name is Bob")
        kernel.tick("what is my name?")
        kernel.tick("12 + 30")
        kernel.tick("what is my favourite colour?")
        kernel.put_fact("user/note/n1/text", SCRIPT)
        kernel.put_fact("user/note/n2/text", IMG)
        kernel.tick(f"{SCRIPT} {IMG} {SVG}")
        kernel.tick(LONG)
        kernel.tick(REPLACED)
        parent = kernel.command(
            "goal_add",
            {"title": f"learn French {SVG}", "parent": None, "priority": 0.7, "activate": True, "split": False,
             "steps": ["read a book | books help", "practice daily | practice helps"]},
        ).agent_outputs["goal_add"]["id"]  # fmt: skip
        kernel.command(
            "goal_add",
            {"title": "learn the verbs", "parent": parent, "priority": 0.5, "activate": False, "split": False,
             "steps": ["conjugate être | the table is right"]},
        )  # fmt: skip
        kernel.checkpoint("after-goals")
        kernel.tick("2 + 2")
    return db


class DiceAgent:
    """Deliberately non-deterministic (reads global randomness): its ticks replay unequal."""

    name, rule, priority = "dice_agent", "matched_dice", 1

    def matches(self, text: str) -> bool:
        return text == "roll"

    def handle(self, ctx: Any) -> AgentReply:
        return AgentReply(f"you rolled {random.SystemRandom().randint(1, 10**12)}")


class DicePlugin:
    @hookimpl
    def agi_register_router_agents(self, register: Any) -> None:
        register(DiceAgent())


@pytest.fixture
def agent_db(tmp_path: Path) -> Path:
    return make_agent(tmp_path / "agent.db")


@pytest.fixture
def dice_db(tmp_path: Path) -> Path:
    db = tmp_path / "dice.db"
    with open_kernel(db, DicePlugin(), seed=SEED) as kernel:
        for text in ["1+1", "2+2", "3+3", "roll", "4+4"]:
            kernel.tick(text)
    return db


def cli_state(db: Path, *extra: Any) -> CliState:
    """What ``agi --db DB`` hands a command: the database, its seed (stored), the plugins."""
    return CliState(db=db, seed=None, brain="stage0", plugins=builtin_plugins(*extra))


@pytest.fixture
def serve() -> Iterator[Callable[..., str]]:
    """``serve(db, *plugins, **create_app options) -> base URL``: the inspector on a real uvicorn, free port
    (``serve.apps[url]``: the app served there)."""
    import uvicorn
    from agi_plugin_inspector.app import create_app
    from agi_plugin_inspector.cli import listening_socket

    running: list[tuple[Any, threading.Thread, CliState]] = []
    apps: dict[str, Any] = {}

    def start(db: Path, *extra: Any, **options: Any) -> str:
        state = cli_state(db, *extra)
        app = create_app(state, **{"poll_s": 0.2, **options})
        sock = listening_socket("127.0.0.1", 0)
        config = uvicorn.Config(app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the inspector did not start in 30 s"
            time.sleep(0.05)
        running.append((server, thread, state))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        apps[url] = app
        return url

    start.apps = apps  # type: ignore[attr-defined]  # the app served at each URL
    yield start
    for (server, thread, state), app in zip(running, apps.values(), strict=True):
        server.should_exit = True
        thread.join(timeout=30)
        app.state.inspector.catch_up.stop()  # as agi serve does on its way out
        state.close()


@pytest.fixture(scope="session")
def chromium_paths() -> dict[str, str]:
    """The Debian chromium and chromedriver, installed by scripts/install_chromium.sh when missing."""
    done = subprocess.run(
        [str(ROOT / "scripts" / "install_chromium.sh")], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


@pytest.fixture
def browser(chromium_paths: dict[str, str]) -> Iterator[Any]:
    """Headless Chromium driven by selenium (chromedriver from Debian: selenium downloads nothing)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium_paths["CHROMIUM"]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(chromium_paths["CHROMEDRIVER"]), options=options)
    driver.set_page_load_timeout(120)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def hostile() -> SimpleNamespace:
    """The hostile strings :func:`make_agent` stores."""
    return SimpleNamespace(script=SCRIPT, img=IMG, svg=SVG, long=LONG, replaced=REPLACED)


@pytest.fixture(name="make_agent")
def make_agent_fixture() -> Callable[..., Any]:
    """``make_agent(db, *plugins)``: the agent of :func:`agent_db` at ``db`` (a file or a backend URL)."""
    return make_agent


@pytest.fixture
def dice_plugin() -> DicePlugin:
    return DicePlugin()


@pytest.fixture
def inspector_app() -> Iterator[Callable[..., Any]]:
    """``inspector_app(db, *plugins, **create_app options)``: the app ``agi serve`` would serve on ``db``."""
    from agi_plugin_inspector.app import create_app

    made: list[tuple[CliState, Any]] = []

    def make(db: Path, *extra: Any, **options: Any) -> Any:
        state = cli_state(db, *extra)
        made.append((state, create_app(state, **options)))
        return made[-1][1]

    yield make
    for state, app in made:
        app.state.inspector.catch_up.stop()  # as agi serve does on its way out
        state.close()


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """The DSN of a fresh PostgreSQL (scripts/start_postgres.sh, unix socket); AGI_TEST_POSTGRES_DSN reuses one."""
    pytest.importorskip("psycopg", reason="pip install -e plugins/agi-plugin-postgres (requirements-test.txt)")
    if os.environ.get("AGI_TEST_POSTGRES_DSN"):
        yield os.environ["AGI_TEST_POSTGRES_DSN"]
        return
    done = subprocess.run(
        [str(ROOT / "scripts" / "start_postgres.sh")], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    try:
        yield lines["DSN"]
    finally:
        subprocess.run([lines["STOP"]], check=False, timeout=60)
