#!/usr/bin/env bash
# Regenerates the "Current figures" section of docs/BENCHMARKS.md: builds the release binary, runs
# `shifr bench --full` (the answer, then every algorithm at every default size, peers interleaved) and
# replaces the text between the bench-table markers with the run's conditions and its output.
# `--section decrypt` (anywhere among the arguments) regenerates the "Current figures, decryption"
# section instead: `shifr bench --full --direction decrypt` between the bench-table-decrypt markers.
# Other arguments go to `shifr bench` (e.g. `--quick` for a trial run). Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/measure-lib.sh

invocation="$*" # as given, for the "Run on" line
section=encrypt
args=()
while [ $# -gt 0 ]; do
  case "$1" in
  --section)
    [ $# -ge 2 ] || {
      echo "bench-table.sh: --section needs encrypt or decrypt" >&2
      exit 2
    }
    section="$2"
    shift 2
    ;;
  --section=*)
    section="${1#--section=}"
    shift
    ;;
  *)
    args+=("$1")
    shift
    ;;
  esac
done
case "$section" in
encrypt) marker=bench-table ;;
decrypt)
  marker=bench-table-decrypt
  args=(--direction decrypt "${args[@]}")
  ;;
*)
  echo "bench-table.sh: unknown --section '$section' (encrypt or decrypt)" >&2
  exit 2
  ;;
esac
set -- "${args[@]}"

doc=docs/BENCHMARKS.md
begin="<!-- $marker:begin -->"
end="<!-- $marker:end -->"
grep -qx "$begin" "$doc" && grep -qx "$end" "$doc" || {
  echo "bench-table.sh: $doc has no '$begin' / '$end' markers" >&2
  exit 1
}

cargo build --release --quiet -p shifr-cli
wait_idle bench-table.sh
table="$(mktemp)"
trap 'rm -f "$table" "$table.new"' EXIT
load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
start=$(date +%s)
target/release/shifr bench --full "$@" >"$table" 2>&1
seconds=$(($(date +%s) - start))
load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //' || echo unknown)"
# The model name alone can be as vague as "AMD EPYC"; the family and model numbers pin it down.
family="$(grep -m1 '^cpu family' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | tr -d ' ' || true)"
model="$(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | tr -d ' ' || true)"
[ -n "$family" ] && [ -n "$model" ] && cpu="$cpu, family $family model $model"
microarch="$(target/release/shifr list 2>/dev/null | sed -n 's/^Backend choice on this CPU (\([^;]*\);.*/\1/p')"
[ -n "$microarch" ] && cpu="$cpu ($microarch)"

{
  echo "$begin"
  echo
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench-table.sh${invocation:+ $invocation}\` (release build of commit"
  echo "$(git rev-parse --short HEAD)$(git diff --quiet -- crates python Cargo.toml Cargo.lock || echo ', with uncommitted code changes'); machine: $cpu, $(nproc) hardware threads)."
  echo "The run took $seconds s of wall time. Load average (1, 5, 15 min) before: $load_before; after: $load_after."
  echo "Rows marked busy were contended (see \"Busy machines\"); a run with any is to be repeated idle."
  echo
  echo '```'
  cat "$table"
  echo '```'
  echo
  echo "$end"
} >"$table.new"

replace_block "$doc" "$begin" "$end" "$table.new"
echo "bench-table.sh: $doc updated ($seconds s)"
