#!/usr/bin/env bash
# Run a local OpenAI-compatible server (llama-cpp-python's llama_cpp.server) in the
# foreground, serving SmolLM2-135M-Instruct unless a model is given.
#
# Usage: scripts/llama_server.sh [MODEL.gguf] [PORT]      (defaults: SmolLM2, 8000)
# Then:  export AGI_OPENAI_BASE_URL=http://127.0.0.1:8000/v1
#
# Needs scripts/install_llama_cpp.sh to have run. PYTHON overrides the interpreter.
# AGI_LLAMA_SERVER_THREADS: llama.cpp threads (generation and prompt), a number or "nproc";
# default 1 (benchmarks/llama_threads.py: on 2 cores 1 thread was the fastest).
# --interrupt_requests false: a streamed answer is not cut short when another request comes (it waits);
# a client that closes its stream still stops the generation (agi_core's openai provider does, once its
# caller has gone).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${PYTHON:-${AGI_PYTHON:-}}"
if [[ -z "$py" ]]; then
  if [[ -x "$here/.venv/bin/python" ]]; then py="$here/.venv/bin/python"; else py="python3"; fi
fi
threads="${AGI_LLAMA_SERVER_THREADS:-1}"
if [[ "$threads" == nproc ]]; then threads="$(nproc 2>/dev/null || echo 2)"; fi
if ! [[ "$threads" =~ ^[1-9][0-9]*$ ]]; then
  echo "AGI_LLAMA_SERVER_THREADS=$threads is not a thread count; set a positive number or nproc" >&2
  exit 1
fi
model="${1:-}"
port="${2:-8000}"
if [[ -z "$model" ]]; then
  if ! model="$("$py" -c 'from agi_core.llm import packaged_gguf; print(packaged_gguf())' 2>&1)"; then
    echo "$model" >&2
    exit 1
  fi
fi
if ! "$py" -c 'import llama_cpp.server.app' 2>/dev/null; then
  echo "llama_cpp.server is not importable with $py; run scripts/install_llama_cpp.sh" >&2
  exit 1
fi
echo "serving $model at http://127.0.0.1:$port/v1 (export AGI_OPENAI_BASE_URL=http://127.0.0.1:$port/v1)" >&2
exec "$py" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
  --n_ctx 2048 --seed 0 --n_threads "$threads" --n_threads_batch "$threads" --interrupt_requests false
