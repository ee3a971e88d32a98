#!/usr/bin/env bash
# clang-format over the C++ sources: --check reports files that differ from
# .clang-format, --fix rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' 2>/dev/null || find core cli wasm tests -name '*.[ch]pp')
if [[ $mode == --fix ]]; then
  clang-format -i "${files[@]}"
  exit 0
fi
bad=0
for file in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$file" 2>/dev/null; then
    echo "not formatted: $file (run 'npm run format')"
    bad=1
  fi
done
if ((bad == 0)); then echo "clang-format: ${#files[@]} files formatted"; fi
exit $bad
