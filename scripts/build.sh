#!/usr/bin/env bash
# Builds everything: the native core, CLI and doctest suite; the wasm
# module; and the page (dist/). Incremental: a second run with nothing
# changed takes a couple of seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's em++ needs its own acorn at -O1 and above (see ../shared/TOOLCHAIN.md).
export NODE_PATH=/usr/share/nodejs

if [[ ! -f build/native/build.ninja ]]; then
  cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAM_WERROR=ON >/dev/null
fi
cmake --build build/native

if [[ ! -f build/wasm/build.ninja ]]; then
  emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAM_WERROR=ON >/dev/null
fi
cmake --build build/wasm
# The CLI for Node (npx vram-calculator): tests/js/cli-i18n.test.mjs runs it beside the native one.
cmake --build build/wasm --target vram_cli_node

node tools/build-page.mjs
