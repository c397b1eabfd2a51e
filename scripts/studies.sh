#!/usr/bin/env bash
# Regenerates the committed study reports (docs/studies/<name>/) with the release binary, one study
# after another. Before each study it waits (up to WAIT_S seconds, default 600) for the 1-minute load
# average to fall below IDLE per hardware thread (default 0.25: half the 0.5 that the reports require,
# so that the previous study's own load has died away), so that every report starts on an idle
# machine and says so in its header; it gives up, changing nothing more, if the machine stays busy.
#
#   scripts/studies.sh                      # every study, at the scale of the committed reports
#   scripts/studies.sh gost-streams dump    # only these
#
# Scales: tls-table, files, gost-streams, kuznyechik-platforms and dump full; tls --quick (the full TLS
# matrix takes most of an hour on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/measure-lib.sh

all=(tls-table files gost-streams kuznyechik-platforms dump tls)
studies=("$@")
[ ${#studies[@]} -gt 0 ] || studies=("${all[@]}")

cargo build --release --quiet -p shifr-cli
shifr=target/release/shifr

for study in "${studies[@]}"; do
  case "$study" in
    tls) args=(--quick --bulk-size 16M --reps 5) ;;
    tls-table | files | gost-streams | kuznyechik-platforms | dump) args=() ;;
    *)
      echo "studies.sh: unknown study '$study' (one of: ${all[*]})" >&2
      exit 2
      ;;
  esac
  wait_idle "studies.sh (before $study)"
  before="$(cut -d' ' -f1-3 /proc/loadavg)"
  start=$(date +%s)
  "$shifr" study "$study" "${args[@]}" --out "docs/studies/$study" >/dev/null
  echo "studies.sh: $study took $(($(date +%s) - start)) s; load before: $before; after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
