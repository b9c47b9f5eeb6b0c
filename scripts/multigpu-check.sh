#!/usr/bin/env bash
# Distributed selection with one GPU per process (issue 26), on a machine with several
# GPUs: builds everything with all cores (NCCL required), runs the tests labelled
# multigpu (mpirun -np 2 and 4, each process binding the GPU of its rank on the host,
# counts over MPI and over NCCL) and the distributed benchmark with one process per
# GPU, then prints a short table. Logs and JSON to $KSELECT_OUT (default
# $BUILD_DIR/multigpu-check).
#
#   scripts/multigpu-check.sh [--tests-only | --bench-only] [--np "2 4"] [-- BENCH_ARGS...]
#
# The benchmark compares, in one run per process count: DIBMS with the counts over
# NCCL and over MPI, DistributedBMS (both transports), Sort&Choose as a user of NCCL
# writes it (every shard to GPU 0, CUB radix sort there: --nccl-sort), the
# single-process call on rank 0's GPU and the read floors (bench/mpi). Default:
# 2^28 float32 per GPU, 101 percentiles, select and top-k, five distributions.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${KSELECT_OUT:-$BUILD_DIR/multigpu-check}
export PATH="$PATH:/usr/local/cuda/bin" NCCL_NVLS_ENABLE=0 OMP_WAIT_POLICY=passive
run_tests=1 run_bench=1 nps="2 4"
bench_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --tests-only) run_bench=0; shift ;;
    --bench-only) run_tests=0; shift ;;
    --np) nps=$2; shift 2 ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "multigpu-check: unknown argument $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if (( gpus < 2 )); then
  echo "multigpu-check: needs at least 2 NVIDIA GPUs (nvidia-smi -L lists $gpus)" >&2
  exit 2
fi
mkdir -p "$OUT_DIR"
start=$SECONDS
stamp() { echo "[$((SECONDS - start)) s] $*" | tee -a "$OUT_DIR/steps.txt"; }
{ nvidia-smi -L; nvidia-smi topo -m 2>&1; mpirun --version 2>&1 | head -1; git rev-parse HEAD 2>/dev/null; } \
  > "$OUT_DIR/machine.txt"

prefix=()
[[ -d .deps ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
stamp "configure (MPI and NCCL required)"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSELECT_WITH_MPI=ON -DKSELECT_WITH_NCCL=ON \
  "${prefix[@]}" > "$OUT_DIR/configure.log" 2>&1 || { tail -30 "$OUT_DIR/configure.log"; exit 1; }
stamp "build everything (-j $(nproc))"
cmake --build "$BUILD_DIR" -j "$(nproc)" > "$OUT_DIR/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$OUT_DIR/build.log" | head -40; exit 1; }

status=0
np_list=()
for np in $nps; do
  if (( np > gpus )); then echo "multigpu-check: -np $np skipped: $gpus GPUs" | tee -a "$OUT_DIR/steps.txt"; continue; fi
  np_list+=("$np")
done
if (( run_tests )); then
  pattern=$(printf '|^mpi\\.multigpu\\.np%s$' "${np_list[@]}")
  stamp "ctest -L multigpu (${np_list[*]} processes)"
  ctest --test-dir "$BUILD_DIR" -L multigpu -R "${pattern:1}" --output-on-failure --timeout 900 \
    > "$OUT_DIR/multigpu-ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Passed|Failed|\*\*\*" "$OUT_DIR/multigpu-ctest.log" | tail -10
fi
bench=$BUILD_DIR/bench/mpi/kselect-mpi-bench
mpi_flags=(--bind-to none -x NCCL_NVLS_ENABLE -x OMP_WAIT_POLICY)
[[ $(id -u) -eq 0 ]] && mpi_flags+=(--allow-run-as-root)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD -- src include bench 2>/dev/null || commit="$commit+dirty"
if (( run_bench )); then
  for np in "${np_list[@]}"; do
    stamp "benchmark: $np processes, one GPU each"
    mpirun -np "$np" "${mpi_flags[@]}" "$bench" --device cuda --n-per-process 2^28 \
      --dist uniform,normal,clustered,all_equal,sixteen_values --ops percentiles101,select,topk \
      --algos dibms,dbms --transports mpi,nccl --nccl-sort --commit "$commit" \
      --json "$OUT_DIR/multigpu-np$np.json" "${bench_args[@]}" > "$OUT_DIR/multigpu-np$np.txt" 2>&1 || status=1
    sed -n '/^== issue 23 and 26 targets/,$p' "$OUT_DIR/multigpu-np$np.txt" | grep -E "^==|issue 26|^  " | grep -B1 -A12 "issue 26" | head -14
  done
  # The short table: every JSON's rows, one line each.
  python3 - "$OUT_DIR" "${np_list[@]}" <<'PY' || true
import json, sys
out, nps = sys.argv[1], sys.argv[2:]
print(f"{'P':>2} {'dist':15} {'op':15} {'algo':11} {'ms':>9} {'rounds':>6} {'bytes/p':>10} {'x floor':>8}")
for np in nps:
    try:
        runs = json.load(open(f"{out}/multigpu-np{np}.json"))
    except OSError:
        continue
    for r in runs["results"]:
        if "ms" not in r:
            continue
        floor = r.get("floor_shard_alone_ms") or r.get("floor_whole_ms") or 0
        print(f"{np:>2} {r['dist']:15} {r['op']:15} {r['algo']:11} {r['ms']:9.3f} {r.get('rounds', '-'):>6} "
              f"{int(r.get('bytes_sent_max', 0)):>10} {r['ms'] / floor if floor else 0:8.1f}")
PY
fi
stamp "done (status $status)"
exit $status
