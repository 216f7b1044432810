"""llama.cpp server threads on SmolLM2: tokens/s and a contract-sized call's latency with 1, 2 and nproc threads.

Starts ``scripts/llama_server.sh`` (the real script) once per thread setting and round, the
settings interleaved round by round so a change in the machine's load hits each alike, and
asks it, after one warm-up request:

- ``gen``: a plain chat completion of up to 64 tokens (greedy): completion tokens per second;
- ``contract``: a contract-sized request (a ~500-token prompt, JSON object output, up to 48
  tokens), as a module's contract call sends: its latency.

Prints each setting's medians and its ratio against 1 thread, measured in the same run, and the
load average before and after. Needs ``scripts/install_llama_cpp.sh``. Usage::

    python benchmarks/llama_threads.py [--rounds 3] [--requests 4] [--threads 1,2,nproc]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from agi_core.llm.testing import free_port

ROOT = Path(__file__).resolve().parents[1]
INSTRUCTIONS = (
    "You read one message of a conversation and say what it is about. Answer with a JSON object "
    'with the keys "topic" (a short noun phrase), "mood" (one of calm, happy, sad, angry, nervous) '
    'and "confidence" (a number between 0 and 1). '
)
CONTRACT_PROMPT = INSTRUCTIONS * 8 + (
    "Message: Hi, I'm Ana. Yesterday I moved to Lisbon for a new job at a bakery; tomorrow I must "
    "register at the city hall, and I'm nervous about my Portuguese."
)


def post(base: str, body: dict[str, object]) -> tuple[float, dict[str, object]]:
    request = urllib.request.Request(
        f"{base}/chat/completions", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=300) as response:
        answer = json.loads(response.read())
    return time.perf_counter() - start, answer


def gen(base: str) -> float:
    """Completion tokens per second of a plain answer."""
    seconds, answer = post(
        base,
        {
            "messages": [{"role": "user", "content": "Tell me a long story about a cat who learns to sail."}],
            "max_tokens": 64,
            "temperature": 0,
        },
    )
    return int(answer["usage"]["completion_tokens"]) / seconds  # type: ignore[index,call-overload]


def contract(base: str) -> float:
    """Seconds of a contract-sized call (long prompt, JSON object output)."""
    seconds, _answer = post(
        base,
        {
            "messages": [{"role": "system", "content": CONTRACT_PROMPT}, {"role": "user", "content": "Answer."}],
            "max_tokens": 48,
            "temperature": 0,
            "response_format": {"type": "json_object"},
        },
    )
    return seconds


def serve(threads: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "AGI_LLAMA_SERVER_THREADS": threads, "PYTHON": sys.executable}
    proc = subprocess.Popen(
        [str(ROOT / "scripts" / "llama_server.sh"), "", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"scripts/llama_server.sh exited with {proc.returncode}; run scripts/install_llama_cpp.sh")
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                return proc, base
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
    stop(proc)
    raise SystemExit("the server did not answer in 120 s")


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=4, help="requests of each kind per server start")
    parser.add_argument("--threads", default="1,2,nproc", help="settings of AGI_LLAMA_SERVER_THREADS")
    args = parser.parse_args()
    settings = args.threads.split(",")
    rates: dict[str, list[float]] = {s: [] for s in settings}
    latencies: dict[str, list[float]] = {s: [] for s in settings}
    load_before = os.getloadavg()
    for round_ in range(args.rounds):
        for threads in settings if round_ % 2 == 0 else settings[::-1]:
            proc, base = serve(threads)
            try:
                gen(base)  # warm-up
                for _ in range(args.requests):
                    rates[threads].append(gen(base))
                    latencies[threads].append(contract(base))
            finally:
                stop(proc)
            rate = statistics.median(rates[threads][-args.requests :])
            latency = statistics.median(latencies[threads][-args.requests :])
            print(f"round {round_ + 1} threads={threads}: {rate:.1f} tok/s, contract {latency:.2f} s", file=sys.stderr)
    load_after = os.getloadavg()
    base_rate, base_latency = statistics.median(rates[settings[0]]), statistics.median(latencies[settings[0]])
    print(f"nproc={os.cpu_count()} load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'threads':>8} {'gen tok/s':>10} {'ratio':>6} {'contract s':>11} {'ratio':>6}")
    for threads in settings:
        rate, latency = statistics.median(rates[threads]), statistics.median(latencies[threads])
        print(f"{threads:>8} {rate:10.1f} {rate / base_rate:6.2f} {latency:11.2f} {latency / base_latency:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
