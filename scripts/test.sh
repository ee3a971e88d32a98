#!/usr/bin/env bash
# Every test: C++ (doctest through ctest), the wasm module under node, the
# page in headless Chromium, the fuzz targets for a fixed number of inputs
# (scripts/fuzz.sh --ci, docs/fuzzing.md), and the source format check. Runs them all,
# prints each runner's summary, and fails if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
run() {
  echo
  echo "== $1"
  shift
  "$@" || status=1
}

# Two test files at a time (node's default on two cores is one): each file
# is a process of its own, a browser file with its own Chromium, and a file
# spends much of its time waiting on the other processes (the browser, the
# CLI, npm), so two keep both cores busy. No file shares state with another
# (temporary folders of their own; dist/ is rewritten whole, by rename).
run "C++ (doctest via ctest)" ctest --test-dir build/native --output-on-failure --verbose --no-label-summary
run "wasm module (node --test)" node --test --test-concurrency=2 tests/js/
run "page (Playwright + Chromium)" node --test --test-concurrency=2 tests/browser/
run "fuzzing (libFuzzer, ASan + UBSan, fixed seed)" bash scripts/fuzz.sh --ci
run "source format (clang-format)" bash scripts/format.sh --check

echo
if ((status == 0)); then echo "npm test: all suites passed"; else echo "npm test: FAILED"; fi
exit $status
