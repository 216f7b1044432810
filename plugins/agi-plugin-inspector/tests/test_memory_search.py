"""Memory search on a real uvicorn: memories are embedded outside the page lock; the page says how far it got."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agi_core.longterm import vectors
from agi_core.testing import open_kernel

pytestmark = pytest.mark.slow  # loads the MiniLM model to embed the memories


class HeldMiniLMFake:
    """A fake for a slow embedder (an agent of thousands of ticks takes minutes): the real MiniLM, each encode
    held until the test lets it go."""

    def __init__(self, real: Any) -> None:
        self.real, self.name, self.dim = real, real.name, real.dim
        self.go = threading.Event()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        assert self.go.wait(120), "the test never let the encode go"
        return self.real.encode(texts)  # type: ignore[no-any-return]


def get(url: str, timeout: float = 20) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read().decode()  # type: ignore[no-any-return]


def test_other_pages_answer_while_the_first_search_embeds_the_memories(
    agent_db: Path, tmp_path: Path, serve: Callable[..., str]
) -> None:
    copy = tmp_path / "copy.db"
    for suffix in ("", ".key"):
        shutil.copyfile(f"{agent_db}{suffix}", f"{copy}{suffix}")
    base = serve(agent_db, embed_wait_s=0.2)
    inspector = serve.apps[base].state.inspector  # type: ignore[attr-defined]
    with inspector.lock:
        memory = inspector.kernel.long_term_memory()
        held = HeldMiniLMFake(memory.embedder)
        memory.embedder = held
        stored = memory.count()
    search = f"{base}/memory?q=what+is+my+name&k=3"
    try:
        page = get(search)  # before: the search held the page lock through every encode (this timed out)
        assert f"Embedding the agent's memories for search: 0 of {stored:,} done." in page
        assert '<meta http-equiv="refresh" content="2">' in page and 'id="hits"' not in page
        assert "learn French" in get(f"{base}/goals")  # another page answers meanwhile
        assert "user/person/self/name" in page  # the facts are listed meanwhile
    finally:
        held.go.set()
    deadline = time.monotonic() + 120
    while 'id="embedding"' in (page := get(search, timeout=120)):
        assert time.monotonic() < deadline, "the memories were not embedded in 120 s"
        time.sleep(0.2)
    assert "refresh" not in page
    scores = [float(score) for score in re.findall(r'<td class="score">([0-9.]+)</td>', page)]
    assert len(scores) == 3 and scores == sorted(scores, reverse=True)
    # the vectors are those a search embedding them itself stores: the hits are agi memory search's on a copy
    with open_kernel(copy, seed="insp") as kernel:
        expected = kernel.long_term.search("what is my name", 3)
    assert scores == [round(hit.score, 3) for hit in expected]
    assert expected[0].to_dict()["text"] in page.split('id="hits"')[1].split("</tr>")[1]
    with inspector.lock:
        assert memory.pending() == 0


def test_memories_rolled_back_while_they_were_embedded_keep_no_vector_of_another_text(
    agent_db: Path, serve: Callable[..., str]
) -> None:
    """Another process rolls back tick 12 while its memories are encoded, and the next tick's memories take
    their seqs: the vectors encoded for the old texts are not stored for the new ones."""
    base = serve(agent_db, embed_wait_s=0.2)
    inspector = serve.apps[base].state.inspector  # type: ignore[attr-defined]
    with inspector.lock:
        memory = inspector.kernel.long_term_memory()
        held = HeldMiniLMFake(memory.embedder)
        memory.embedder = held
        before = {seq: text for seq, _tick, text, _speaker in memory.rows.missing_vectors(held.name)}
    search = f"{base}/memory?q=favourite+colour&k=1"
    try:
        assert 'id="embedding"' in get(search)  # listed, held in the first encode
        with open_kernel(agent_db, seed="insp") as other:  # as agi rollback and agi run in another process
            other.rollback("after-goals")
            other.tick("my favourite colour is green")
            other.long_term_memory()
    finally:
        held.go.set()
    deadline = time.monotonic() + 120
    while 'id="embedding"' in (page := get(search, timeout=120)):
        assert time.monotonic() < deadline, "the memories were not embedded in 120 s"
        time.sleep(0.2)
    assert "my favourite colour is green" in page.split('id="hits"')[1]
    with inspector.lock:
        items = memory.items(list(range(1, memory.rows.max_seq() + 1)))
        stored = vectors.fetch(memory.rows, held.name, held.dim, list(items))
    assert [before[11], items[11].text] == ["2 + 2", "my favourite colour is green"]  # seq 11 went to another text
    for seq, item in items.items():  # each vector is its own text's
        assert np.allclose(stored[seq], held.real.encode([item.embedding_text()])[0], atol=1e-5), (seq, item.text)


def test_ctrl_c_while_the_memories_are_embedded_ends_the_server_cleanly(tmp_path: Path) -> None:
    """Ctrl-C with the embedding under way aborted the process ('terminate called without an active
    exception', exit 134): the embedding thread was still in onnxruntime as the interpreter exited."""
    db = tmp_path / "big.db"
    with open_kernel(db, seed="insp") as kernel:
        for n in range(1000):  # 1,000 ticks (their inputs and replies): seconds of encoding
            kernel.tick(f"note {n}: the blue whale number {n} swims past island {n % 97}")
    server = subprocess.Popen(
        [sys.executable, "-m", "agi_core", "--db", str(db), "serve", "--port", "0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={**os.environ, "AGI_LOAD_PLUGINS": "inspector"},
    )  # fmt: skip
    try:
        assert server.stderr is not None
        base = re.search(r"http://\S+:\d+", server.stderr.readline()).group(0)  # type: ignore[union-attr]
        deadline = time.monotonic() + 120
        while not re.search(r"search: [1-9][0-9,]* of 1,000 done", get(f"{base}/memory?q=whale")):
            assert time.monotonic() < deadline, "no memory was embedded in 120 s"
        server.send_signal(signal.SIGINT)
        _, errors = server.communicate(timeout=120)
    finally:
        server.kill()
    assert (server.returncode, "terminate called" in errors) == (130, False), errors  # 130: as any Ctrl-C'd agi
    with open_kernel(db, seed="insp") as kernel:  # what was stored is whole; the next search embeds the rest
        memory = kernel.long_term_memory(caught_up=False)
        assert 0 < memory.rows.vector_count(memory.embedder.name) < memory.count()
