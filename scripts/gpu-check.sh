#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build everything with all cores, run the whole
# test suite (GPU tests included), the GPU benchmark and the host-stream benchmark,
# and print a short table last. Logs and the benchmark's JSON go to $KSELECT_OUT (default: build/gpu-check).
#
#   scripts/gpu-check.sh [--quick]      # --quick: benchmark only the 2^28 cases
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${KSELECT_OUT:-$BUILD_DIR/gpu-check}
BENCH_ARGS=()
[[ "${1:-}" == "--quick" ]] && BENCH_ARGS+=(--quick)
export PATH="$PATH:/usr/local/cuda/bin"

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "gpu-check: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
  exit 2
fi
mkdir -p "$OUT_DIR"
nvidia-smi -L | tee "$OUT_DIR/device.txt"
git rev-parse HEAD 2>/dev/null | tee "$OUT_DIR/commit.txt" || true

prefix=()
[[ -d .deps ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix[@]}" > "$OUT_DIR/configure.log" 2>&1 ||
  { tail -30 "$OUT_DIR/configure.log"; exit 1; }
cmake --build "$BUILD_DIR" -j "$(nproc)" > "$OUT_DIR/build.log" 2>&1 || { tail -40 "$OUT_DIR/build.log"; exit 1; }

status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure --timeout 900 > "$OUT_DIR/ctest.log" 2>&1 || status=1
"$BUILD_DIR/bench/kselect-gpu-bench" --json "$OUT_DIR/bench.json" "${BENCH_ARGS[@]}" > "$OUT_DIR/bench.txt" 2>&1 || status=1
# What a Python user would use instead (torch, cupy), same machine, same session.
py_json=()
if python3 -c "import torch" >/dev/null 2>&1; then
  python3 bench/python/compare_torch_cupy.py --json "$OUT_DIR/python.json" > "$OUT_DIR/python.txt" 2>&1 || status=1
  py_json=("$OUT_DIR/python.json")
fi
python3 bench/summarize.py "$OUT_DIR/bench.json" "${py_json[@]}" > "$OUT_DIR/results.md" || status=1
# Host arrays streamed through the GPU, against the pinned copy bandwidth and the CPU
# backend: 2^30 float32 (4 GiB of host memory; 2^34 with --log2n 34 needs 64 GiB).
"$BUILD_DIR/bench/kselect-host-stream-bench" --log2n 30 --pinned --cpu --json "$OUT_DIR/host-stream.json" \
  > "$OUT_DIR/host-stream.txt" 2>&1 || status=1

echo "== tests"
grep -E "tests passed|tests failed|Failed|\*\*\*" "$OUT_DIR/ctest.log" || true
[[ -f "$OUT_DIR/python.txt" ]] && { echo "== torch / cupy (ms)"; cat "$OUT_DIR/python.txt"; }
echo "== benchmark (ms; floor = cub::DeviceReduce over the input, sort = CUB radix sort)"
cat "$OUT_DIR/bench.txt"
echo "== host arrays streamed through the GPU (ms; floor = the array at the pinned copy bandwidth)"
cat "$OUT_DIR/host-stream.txt"
exit $status
