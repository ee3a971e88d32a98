#!/usr/bin/env bash
# `npm run --silent cli -- <command> [flags]` runs the native CLI built by
# `npm run build`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="$root/build/native/vramcalc"
if [[ ! -x "$cli" ]]; then
  echo "vramcalc is not built yet: run 'npm run build' first" >&2
  exit 1
fi
exec "$cli" "$@"
