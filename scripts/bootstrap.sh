#!/usr/bin/env bash
# Installs what the build and the tests need, and only what is missing:
# Debian packages through apt-get (as root), npm packages through `npm ci
# --ignore-scripts` when node_modules is missing or older than
# package-lock.json. When all is present this costs a fraction of a second.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and libclang-rt-14-dev (libFuzzer and the ASan/UBSan runtimes,
# which clang-14 does not pull in) build the fuzz targets (docs/fuzzing.md);
# xz-utils packs the wasm module for the page as LZMA (tools/build-page.mjs;
# the decoder is built by emscripten's clang-14).
packages=(cmake ninja-build g++ emscripten nlohmann-json3-dev doctest-dev chromium clang-format xz-utils
          clang libclang-rt-14-dev)

installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null || true)
missing=()
for package in "${packages[@]}"; do
  grep -q "^${package} install ok installed$" <<<"$installed" || missing+=("$package")
done

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    {
      echo "bootstrap: these Debian packages are missing: ${missing[*]}"
      echo "Install them as root, then run this command again:"
      echo
      echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    } >&2
    exit 1
  fi
  echo "bootstrap: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if ((node_major < 20)); then
  echo "bootstrap: Node 20 or newer is needed (found $(node --version))" >&2
  exit 1
fi

# --ignore-scripts: no package runs code at install (this script may run as
# root). The only install script in the lock is esbuild's postinstall, which
# checks its platform binary and copies it over bin/esbuild as a speed-up;
# the build uses esbuild's JS API, which finds @esbuild/<platform> (an
# optional dependency npm installs anyway) without it. npm's audit stays on
# (a report only: it does not fail the install).
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "bootstrap: npm ci --ignore-scripts"
  npm ci --ignore-scripts --no-fund --loglevel=error
fi
