# Shared by the scripts that publish measurements (bench-table.sh, studies.sh, dask-throughput.sh);
# source it, do not run it.

# wait_idle WHO: waits (up to WAIT_S seconds, default 600) until the 1-minute load average is below
# IDLE per hardware thread (default 0.25: half the 0.5 that published figures require, so that a
# build or an earlier run has died away); fails with one line naming WHO if it never is.
wait_idle() {
  local limit waited=0
  limit=$(awk -v i="${IDLE:-0.25}" -v t="$(nproc)" 'BEGIN { print i * t }')
  until awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$limit" 'BEGIN { exit !(l < m) }'; do
    if [ "$waited" -ge "${WAIT_S:-600}" ]; then
      echo "$1: the load stayed at or above $limit for ${WAIT_S:-600} s; run it on an idle machine" >&2
      return 1
    fi
    sleep 5
    waited=$((waited + 5))
  done
}

# replace_block DOC BEGIN END NEW: replaces the lines from the marker line BEGIN to the marker line
# END of DOC (markers included) with the file NEW, which carries the markers itself.
replace_block() {
  awk -v begin="$2" -v end="$3" -v new="$4" '
    $0 == begin { while ((getline line < new) > 0) print line; skip = 1; next }
    $0 == end { skip = 0; next }
    !skip { print }
  ' "$1" >"$1.tmp"
  mv "$1.tmp" "$1"
}
