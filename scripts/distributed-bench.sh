#!/usr/bin/env bash
# Issue 23's distributed benchmark: kselect-mpi-bench (bench/mpi/) under mpirun, in
# the issue's configurations, one run per process count; logs and JSON to one folder.
#   GPU: P = 1, 2, 4 processes sharing the machine's GPU(s) (local rank modulo the
#        GPUs), 2^26 float32 keys each in device memory
#   CPU: P = 1, 2, 4 processes on the host's cores, 2^22 float32 keys each, every
#        process with max(1, cores / P) threads (options.local.cpu_threads)
# Every run compares DIBMS, DistributedBMS, Sort&Choose and the single-process call on
# the whole data, with the read floors, and checks every answer (a wrong one fails
# the run). Needs a built tree with kselect_mpi (an MPI found at configure time):
#   cmake --build $BUILD_DIR --target kselect_mpi_bench
#
#   scripts/distributed-bench.sh [--gpu] [--cpu] [--np "1 2 4"] [--out DIR] [-- ARGS...]
#     --gpu / --cpu   only those runs (default: both; --gpu needs a CUDA build and a GPU)
#     --np LIST       process counts (default "1 2 4")
#     --out DIR       where the logs and JSON go (default $KSELECT_OUT, else
#                     $BUILD_DIR/distributed-bench)
#     -- ARGS...      passed on to every kselect-mpi-bench run (e.g. --dist uniform
#                     --repeats 15, or --n-per-process 2^24)
# Environment: BUILD_DIR (default build), MPIRUN (default mpirun), KSELECT_COMMIT
# (the commit to record where the tree has no git history).
#
# mpirun gets --bind-to none (Open MPI binds each process to one core by default for
# np <= 2, which would confine a process's threads to that core), --oversubscribe (a
# 2-core CI machine runs 4 processes) and --allow-run-as-root when run as root;
# OMP_WAIT_POLICY=passive, so that idle OpenMP threads sleep instead of spinning on
# cores the other processes need. Without MPS, processes sharing one GPU take turns
# on it (time slicing); the script records whether an MPS daemon runs (mps.txt) and
# leaves the GPU's settings alone.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${KSELECT_OUT:-$BUILD_DIR/distributed-bench}
MPIRUN=${MPIRUN:-mpirun}
sides=()
nps="1 2 4"
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --gpu) sides+=(gpu); shift ;;
    --cpu) sides+=(cpu); shift ;;
    --np) nps=$2; shift 2 ;;
    --out) OUT_DIR=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "distributed-bench: unknown argument $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
[[ ${#sides[@]} -eq 0 ]] && sides=(gpu cpu)

bench=$BUILD_DIR/bench/mpi/kselect-mpi-bench
if [[ ! -x $bench ]]; then
  echo "distributed-bench: $bench is not built (cmake --build $BUILD_DIR --target kselect_mpi_bench;" \
       "it needs an MPI at configure time: libopenmpi-dev)" >&2
  exit 2
fi
command -v "$MPIRUN" >/dev/null || { echo "distributed-bench: $MPIRUN not found" >&2; exit 2; }
mkdir -p "$OUT_DIR"

commit=${KSELECT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
if [[ -z ${KSELECT_COMMIT:-} ]] && ! git diff --quiet HEAD -- src include bench 2>/dev/null; then
  commit="$commit+dirty"  # uncommitted changes in the library or the benchmarks
fi
echo "$commit" > "$OUT_DIR/commit.txt"
"$MPIRUN" --version 2>&1 | head -1 > "$OUT_DIR/mpi.txt" || true
nproc > "$OUT_DIR/cores.txt"

mpi_flags=(--bind-to none --oversubscribe -x OMP_WAIT_POLICY)
[[ $(id -u) -eq 0 ]] && mpi_flags+=(--allow-run-as-root)
export OMP_WAIT_POLICY=passive

status=0
summary=()
for side in "${sides[@]}"; do
  if [[ $side == gpu ]]; then
    if ! nvidia-smi -L > "$OUT_DIR/device.txt" 2>&1; then
      echo "distributed-bench: no NVIDIA GPU here (nvidia-smi -L failed): skipping the GPU runs" >&2
      status=1
      continue
    fi
    nvidia-smi >> "$OUT_DIR/device.txt" 2>&1 || true
    { pgrep -a nvidia-cuda-mps || echo "no MPS daemon running"; } > "$OUT_DIR/mps.txt" 2>&1
    device=cuda
  else
    device=cpu
  fi
  for np in $nps; do
    name=$side-np$np
    echo "== $name: $MPIRUN -np $np ${mpi_flags[*]} $bench --device $device ${extra[*]}"
    if "$MPIRUN" -np "$np" "${mpi_flags[@]}" "$bench" --device "$device" --commit "$commit" \
         --json "$OUT_DIR/$name.json" "${extra[@]}" > "$OUT_DIR/$name.txt" 2>&1; then
      summary+=("$name: ok")
    else
      summary+=("$name: FAILED (exit status $?; see $OUT_DIR/$name.txt)")
      status=1
    fi
    # The run's target checks (the lines after its '== issue 23 and 26 targets' header).
    sed -n '/^== issue 23 and 26 targets/,$p' "$OUT_DIR/$name.txt"
  done
done
echo "== runs"
printf '%s\n' "${summary[@]}"
echo "logs and JSON: $OUT_DIR"
exit $status
