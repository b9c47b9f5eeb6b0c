#!/usr/bin/env bash
# The distributed calls (kselect/mpi.hpp) on a GPU machine: builds what they need with
# all cores, runs their GPU tests (the CUDA shard against brute force, then the
# library, the tool and the Python package under mpirun with processes sharing the
# GPU(s), local rank modulo the GPUs) and the distributed benchmark
# (scripts/distributed-bench.sh); logs to $KSELECT_OUT (default
# $BUILD_DIR/distributed-gpu-check), a short summary last.
#
#   scripts/distributed-gpu-check.sh [--tests-only | --bench-only] [-- BENCH_ARGS...]
#
# Needs MPI (mpicxx, mpirun) and a CUDA GPU; the Python tests need a python3 with
# nanobind, NumPy, pytest, mpi4py and torch or CuPy (else they are skipped).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) wherever NCCL is loaded.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${KSELECT_OUT:-$BUILD_DIR/distributed-gpu-check}
export PATH="$PATH:/usr/local/cuda/bin" NCCL_NVLS_ENABLE=0 OMP_WAIT_POLICY=passive
run_tests=1 run_bench=1
bench_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --tests-only) run_bench=0; shift ;;
    --bench-only) run_tests=0; shift ;;
    --) shift; bench_args=("$@"); break ;;
    *) echo "distributed-gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
nvidia-smi -L >/dev/null 2>&1 || { echo "distributed-gpu-check: no NVIDIA GPU (nvidia-smi -L failed)" >&2; exit 2; }
mkdir -p "$OUT_DIR"
start=$SECONDS
stamp() { echo "[$((SECONDS - start)) s] $*" | tee -a "$OUT_DIR/steps.txt"; }

{ nvidia-smi -L; mpirun --version 2>&1 | head -1; git rev-parse HEAD 2>/dev/null;
  python3 -c 'import mpi4py, nanobind; print("mpi4py", mpi4py.__version__, "nanobind", nanobind.__version__)' 2>&1; } \
  > "$OUT_DIR/machine.txt"

python_args=()
python3 -c 'import nanobind, numpy' 2>/dev/null && python_args=(-DKSELECT_BUILD_PYTHON=ON -DKSELECT_PYTHON="$(command -v python3)")
prefix=()
[[ -d .deps ]] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
stamp "configure"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKSELECT_WITH_MPI=ON "${prefix[@]}" \
  "${python_args[@]}" > "$OUT_DIR/configure.log" 2>&1 || { tail -30 "$OUT_DIR/configure.log"; exit 1; }
targets=(kselect_cuda_tests kselect_mpi_tests kselect_cli kselect_mpi_cli_tests kselect_mpi_bench)
[[ ${#python_args[@]} -gt 0 ]] && targets+=(_kselect_package _kselect _kselect_mpi)
stamp "build ${targets[*]}"
cmake --build "$BUILD_DIR" -j "$(nproc)" --target "${targets[@]}" > "$OUT_DIR/build.log" 2>&1 ||
  { grep -E "error|FAILED" "$OUT_DIR/build.log" | head -40; exit 1; }

status=0
if (( run_tests )); then
  stamp "gpu.DistributedCudaShard*"
  "$BUILD_DIR/tests/kselect_cuda_tests" --gtest_filter='DistributedCuda*' > "$OUT_DIR/shard-tests.log" 2>&1 || status=1
  tail -3 "$OUT_DIR/shard-tests.log"
  stamp "ctest -L gpu -R mpi (library, tool, Python package)"
  ctest --test-dir "$BUILD_DIR" -L gpu -R '^mpi' --output-on-failure --timeout 900 > "$OUT_DIR/mpi-gpu-ctest.log" 2>&1 ||
    status=1
  grep -E "tests passed|tests failed|Passed|Failed|\*\*\*" "$OUT_DIR/mpi-gpu-ctest.log" | tail -30
fi
if (( run_bench )); then
  stamp "scripts/distributed-bench.sh --gpu ${bench_args[*]}"
  BUILD_DIR=$BUILD_DIR KSELECT_OUT="$OUT_DIR/bench" scripts/distributed-bench.sh --gpu "${bench_args[@]}" \
    > "$OUT_DIR/bench.log" 2>&1 || status=1
  tail -40 "$OUT_DIR/bench.log"
fi
stamp "done (status $status)"
exit $status
