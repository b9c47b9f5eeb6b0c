#!/usr/bin/env bash
# The CPU backend against NumPy on this machine, in one run: kselect-cpu-bench and
# NumPy on the same data (bench/python/cpu_numpy_bench.py), reading a .npy against
# np.load (bench/python/read_bench.py), and the tool itself on one large file.
# Needs a built tree (make build, or BUILD_DIR=...) and Python with NumPy.
# Logs and JSON go to $KSELECT_OUT (default: $BUILD_DIR/cpu-check).
#
#   scripts/cpu-check.sh [--large-log2n 31] [--topk-log2n 28] [--skip-small]
#     --large-log2n L   also a row of 2^L uniform float32 keys (default: none):
#                       np.load and np.partition there, 3 timed runs each
#                       (np.percentile of 2^31 keys alone takes minutes)
#     --topk-log2n L    also the tool's `topk -k 2^(L-1) --sorted` on 2^L uniform
#                       float32 keys, as text and as --json (wall time, peak memory),
#                       against np.sort of the same array, 3 runs each
#     --skip-small      without the 2^20/2^24/2^26 rows (reading is still timed)
# KSELECT_COMMIT names the commit where the tree has no git history.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${KSELECT_OUT:-$BUILD_DIR/cpu-check}
PYTHON=${PYTHON:-python3}
large=""
topk=""
small=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --large-log2n) large=$2; shift 2 ;;
    --topk-log2n) topk=$2; shift 2 ;;
    --skip-small) small=0; shift ;;
    *) echo "cpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$BUILD_DIR/bench/kselect-cpu-bench
tool=$BUILD_DIR/apps/kselect/kselect
for f in "$bench" "$tool"; do
  [[ -x $f ]] || { echo "cpu-check: $f is not built (make build)" >&2; exit 2; }
done
# timed_to FILE CMD...: CMD's wall time and peak memory into FILE (GNU time where
# installed, else bash's time, without the peak); CMD's own output is left alone.
timed_to() {
  local report=$1
  shift
  if [[ -x /usr/bin/time ]]; then
    /usr/bin/time -o "$report" -f "wall %e s, peak %M KB" "$@"
  else
    local TIMEFORMAT="wall %R s"
    { time "$@" 2>&3; } 3>&2 2>"$report"
  fi
}
# timed CMD...: CMD's output, then its wall time and peak memory.
timed() {
  local report
  report=$(mktemp)
  timed_to "$report" "$@"
  cat "$report"
  rm -f "$report"
}
mkdir -p "$OUT_DIR"
{
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) threads"
  echo "numpy: $("$PYTHON" -c 'import numpy; print(numpy.__version__)')"
  echo "commit: ${KSELECT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
} | tee "$OUT_DIR/cpu-machine.txt"

if [[ $small == 1 ]]; then
  "$PYTHON" bench/python/cpu_numpy_bench.py --bench "$bench" --log2n 20,24,26 --runs 10 \
    --json "$OUT_DIR/cpu-numpy.json" | tee "$OUT_DIR/cpu-numpy.txt"
fi
: > "$OUT_DIR/read.txt"
for l in 24 26; do
  "$PYTHON" bench/python/read_bench.py --kselect "$tool" --log2n "$l" --reps 11 | tee -a "$OUT_DIR/read.txt"
done

if [[ -n $topk ]]; then
  dir=$(mktemp -d)
  "$PYTHON" -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(7).random(1 << $topk, dtype=np.float32))" "$dir/topk.npy"
  k=$((1 << (topk - 1)))
  {
    echo "topk -k $k --sorted of 2^$topk float32 ($(du -h "$dir/topk.npy" | cut -f1)), output to a file"
    for r in 1 2 3; do
      for json in "" --json; do
        timed_to "$dir/time" "$tool" --device cpu $json topk -k $k --sorted "$dir/topk.npy" > "$dir/out"
        echo "${json:-text}: $(cat "$dir/time"), $(stat -c %s "$dir/out") bytes"
      done
    done
    "$PYTHON" -c "
import numpy as np, sys, time
a = np.load(sys.argv[1])
for r in range(3):
    t = time.perf_counter(); b = np.sort(a); print(f'np.sort: {time.perf_counter() - t:.2f} s'); del b
" "$dir/topk.npy"
  } | tee "$OUT_DIR/topk.txt"
  rm -rf "$dir"
fi

if [[ -n $large ]]; then
  "$PYTHON" bench/python/cpu_numpy_bench.py --bench "$bench" --log2n "$large" --dists uniform --runs 10 \
    --numpy-runs 3 --numpy-ops load,partition --json "$OUT_DIR/cpu-numpy-large.json" | tee "$OUT_DIR/cpu-numpy-large.txt"
  # The tool on a file of that size: its read and select times, and the whole call.
  file=$(mktemp -d)/large.npy
  "$PYTHON" -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(7).random(1 << $large, dtype=np.float32))" "$file"
  n=$((1 << large))
  for r in 1 2 3; do
    timed "$tool" --device cpu --json select -k $((n / 2)) "$file" 2>&1
  done | tee "$OUT_DIR/tool-large.txt"
  timed "$tool" --device cpu --json quantile --percentiles "$file" 2>&1 |
    sed 's/"values":\[[^]]*\]/"values":[...]/' | tee -a "$OUT_DIR/tool-large.txt"
  rm -rf "$(dirname "$file")"
fi
