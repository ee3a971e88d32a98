#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan, in their
# own folder build/fuzz) and runs them.
#
#   bash scripts/fuzz.sh --ci   what `npm test` runs: every saved regression
#                               input once, then each target for a fixed number
#                               of inputs from a fixed seed (VRAM_FUZZ_RUNS,
#                               default 100000) or VRAM_FUZZ_CI_SECONDS
#                               (default 25) seconds, whichever comes first:
#                               with 5 targets, 2 at a time, about 90 s
#   bash scripts/fuzz.sh        `npm run fuzz`: the regressions, then each target
#                               for VRAM_FUZZ_SECONDS (default 600) seconds with
#                               a random seed, keeping its corpus in
#                               build/fuzz/corpus/ and going on past crashes
#
# A crash fails the run; its input is saved under build/fuzz/crashes/TARGET/
# and the path printed. Minimise it (./build/fuzz/tests/fuzz/TARGET
# -minimize_crash=1 -runs=10000 FILE) and commit it under
# tests/fuzz/regressions/TARGET/: every later run replays it.
set -uo pipefail
cd "$(dirname "$0")/.."

mode=long
[[ ${1:-} == --ci ]] && mode=ci
runs=${VRAM_FUZZ_RUNS:-100000}
seconds=${VRAM_FUZZ_SECONDS:-600}
ci_seconds=${VRAM_FUZZ_CI_SECONDS:-25}
# One target per tests/fuzz/fuzz_*.cpp, as tests/fuzz/CMakeLists.txt builds them.
mapfile -t targets < <(basename -s .cpp tests/fuzz/fuzz_*.cpp)
build=build/fuzz

if [[ ! -f $build/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -S . -B $build -G Ninja -DVRAM_FUZZ=ON -DVRAM_WERROR=ON >/dev/null || exit 1
fi
cmake --build $build --target "${targets[@]}" || exit 1
node tests/fuzz/seeds.mjs $build || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0

# Every saved regression input of one target, once each.
replay() {
  local target=$1 binary=$build/tests/fuzz/$1 crashes=$build/crashes/$1 input bad=0
  mapfile -t saved < <(find tests/fuzz/regressions/$target -type f ! -name '*.md' 2>/dev/null | sort)
  ((${#saved[@]} > 0)) || return 0
  echo "$target: replaying ${#saved[@]} regression inputs"
  for input in "${saved[@]}"; do
    if ! "$binary" "$input" >"$crashes/replay.log" 2>&1; then
      grep -E 'ERROR: |runtime error: |fuzz check failed|SUMMARY: |terminate called|what\(\): ' "$crashes/replay.log" | head -n 5
      echo "$target: CRASH on the regression input $input"
      bad=1
    fi
  done
  return $bad
}

# One target's fuzzing run; its output goes to build/fuzz/crashes/TARGET/run.log.
fuzz() {
  local target=$1 binary=$build/tests/fuzz/$1 crashes=$build/crashes/$1 corpus
  local common=(-dict=$build/json.dict -artifact_prefix="$crashes/" -timeout=10 -rss_limit_mb=2048
                -print_final_stats=1)
  if [[ $target == fuzz_checkpoint* || $target == fuzz_index ]]; then
    # Checkpoint files: inputs up to 1 MB and 3 s each, so work that grows
    # faster than a file's bytes shows as a timeout, one allocation past 64 MB as
    # a crash (docs/fuzzing.md).
    common+=(-max_len=1048576 -timeout=3 -malloc_limit_mb=64)
  fi
  if [[ $mode == ci ]]; then
    # A fresh corpus each time: the same seed over the same seeds gives the
    # same inputs, so a failure here reproduces.
    corpus=$build/corpus-ci/$target
    rm -rf "$corpus" && mkdir -p "$corpus"
    "$binary" "${common[@]}" -seed=1 -runs="$runs" -max_total_time="$ci_seconds" "$corpus" \
      "$build/seeds/$target" \
      >"$crashes/run.log" 2>&1
  else
    corpus=$build/corpus/$target
    mkdir -p "$corpus"
    "$binary" "${common[@]}" -max_total_time="$seconds" -fork=1 -ignore_crashes=1 \
      -ignore_timeouts=1 -ignore_ooms=1 "$corpus" "$build/seeds/$target" \
      >"$crashes/run.log" 2>&1
  fi
}

# What one run found: prints the crashes and returns 1 if there were any.
report() {
  local target=$1 result=$2 crashes=$build/crashes/$1 input
  grep -E '^stat::number_of_executed_units' "$crashes/run.log" | tail -n 1 | sed "s/^/$target: /"
  mapfile -t found < <(grep -oE "Test unit written to \S+" "$crashes/run.log" | awk '{print $5}' | sort -u)
  ((result == 0 && ${#found[@]} == 0)) && return 0
  grep -E 'ERROR: |runtime error: |fuzz check failed|SUMMARY: |terminate called|what\(\): ' "$crashes/run.log" | head -n 20
  for input in "${found[@]}"; do echo "$target: CRASH, input saved as $input"; done
  echo "$target: FAILED (log: $crashes/run.log)"
  return 1
}

for target in "${targets[@]}"; do
  mkdir -p "$build/crashes/$target" "$build/seeds/$target"
  replay "$target" || status=1
done

# The targets run side by side, VRAM_FUZZ_JOBS (default 2) at a time: one
# core each on the project's 2-core machine.
parallel=${VRAM_FUZZ_JOBS:-2}
if [[ $mode == ci ]]; then
  echo "fuzzing ${targets[*]}: $runs inputs each from seed 1"
else
  echo "fuzzing ${targets[*]}: $seconds seconds each"
fi
start=$SECONDS
declare -A pids
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n; done
  fuzz "$target" &
  pids[$target]=$!
done
for target in "${targets[@]}"; do
  wait "${pids[$target]}"
  report "$target" $? || status=1
done
echo "fuzzing took $((SECONDS - start)) s"
exit $status
