#!/usr/bin/env bash
# Multi-core scaling of issue 4 ("record, on the device machine's 16 cores, the scaling at
# 1/2/4/8/16 threads, target >= 14x at 16") and seed 001's parallel-scaling coefficient.
#
#   scripts/cpu-scaling.sh [SHIFR_BINARY]     (default: .gpu-carry/shifr, else target/release/shifr)
#
# Runs `shifr bench --threads` over the issue's CTR / ECB / GCM / MGM rows (plus ChaCha20-Poly1305)
# on one large message, thread counts doubling up to every hardware thread, then prints each row's
# speed-up over one thread and the parallel efficiency (speed-up / threads). Then `shifr study
# gost-streams` up to the same thread count (seed 001: 16,384 sectors of 512 B, each its own key).
# Needs no cargo: scripts/gpu-bench.sh --prepare puts the binary in .gpu-carry/, which the device
# tool carries: run(command='scripts/cpu-scaling.sh', carry=['.gpu-carry']) (a call of its own, so
# that gpu-bench.sh keeps its whole 10-minute limit).
#
# CPU_SCALING_SIZE (default 64M: big enough that every thread gets several parts), CPU_SCALING_SECONDS
# (0.5 per row) and CPU_SCALING_STUDY=0 (leave the study out) tune it.
set -euo pipefail
cd "$(dirname "$0")/.."
shifr=${1:-}
[ -n "$shifr" ] || { [ -x .gpu-carry/shifr ] && shifr=.gpu-carry/shifr || shifr=target/release/shifr; }
[ -x "$shifr" ] || { echo "cpu-scaling.sh: no shifr binary at $shifr (cargo build --release -p shifr-cli)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "cpu-scaling.sh: needs python3 to tabulate the JSON" >&2; exit 1; }

cores=$(nproc)
threads=1
t=2
while [ "$t" -le "$cores" ]; do threads="$threads,$t"; t=$((t * 2)); done
# A core count that is not a power of two is measured too.
case ",$threads," in *",$cores,"*) ;; *) threads="$threads,$cores" ;; esac
size=${CPU_SCALING_SIZE:-64M}
seconds=${CPU_SCALING_SECONDS:-0.5}
algs=aes-128-ctr,aes-128-ecb,aes-128-gcm,aes-256-gcm,chacha20-poly1305,magma-ctr,magma-ecb,magma-mgm,kuznyechik-ctr,kuznyechik-ecb,kuznyechik-mgm

built=$([ "$shifr" = .gpu-carry/shifr ] && tr '\n' ' ' <.gpu-carry/commit 2>/dev/null || echo "$shifr")
echo "== CPU scaling, $(date -u +%Y-%m-%dT%H:%MZ), shifr built from: $built"
echo "== CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cores hardware threads, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== $shifr bench --alg $algs --size $size --threads $threads --peers none --seconds $seconds --json"
json=$(mktemp)
"$shifr" bench --alg "$algs" --size "$size" --threads "$threads" --peers none --seconds "$seconds" --json >"$json"
python3 - "$json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["implementation"] == "shifr"]
base = {r["algorithm"]: r["mb_s"] for r in rows if r["threads"] == 1}
counts = sorted({r["threads"] for r in rows})
print("| algorithm | " + " | ".join(f"{t} thr MB/s (x)" for t in counts) + f" | efficiency at {counts[-1]} |")
print("|---|" + "---|" * (len(counts) + 1))
for alg in base:
    speed = {r["threads"]: r["mb_s"] for r in rows if r["algorithm"] == alg}
    cells = [f"{speed[t]:.0f} ({speed[t] / base[alg]:.2f})" for t in counts if t in speed]
    last = speed.get(counts[-1])
    eff = f"{last / base[alg] / counts[-1]:.2f}" if last else "-"
    print(f"| {alg} | " + " | ".join(cells) + f" | {eff} |")
PY
rm -f "$json"
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "(load after: $load)"

if [ "${CPU_SCALING_STUDY:-1}" != 0 ]; then
  echo "== $shifr study gost-streams --quick --threads $cores (seed 001: scaling coefficient)"
  study=$(mktemp -d)
  "$shifr" study gost-streams --quick --threads "$cores" --out "$study" >/dev/null
  cat "$study/report.md"
  rm -rf "$study"
fi
