# kselect: convenience front end to CMake (the build itself is CMake + Ninja).
#
#   make run                    install missing deps, build, run `kselect demo`
#   make test                   install missing deps, build everything, run ctest
#                               (tests labelled gpu are skipped without a usable GPU),
#                               then `make python-test`
#   make python-test            pip install . into $(BUILD_DIR)/python-venv (CUDA backend
#                               only when a GPU is usable) and run its pytest suite, then
#                               the distributed calls' (comm=) under mpirun -np 1, 2, 3, 4
#   make install PREFIX=/opt/kselect
#   make clean                  remove the build directories this Makefile makes
#   make gpu-check              scripts/gpu-check.sh (on a machine with a GPU)
#
# Variables:
#   PRESET=default|cpu-only     CMake configure preset (CMakePresets.json);
#                               default builds the CUDA backend when nvcc is found
#   BUILD_DIR=...               build directory (default: the preset's)
#   CMAKE_ARGS="-D..."          extra configure arguments, e.g.
#                               CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=80-real
#   GPU=auto|0|1                run the gpu-labelled tests (auto: `nvidia-smi -L` lists a GPU)
#   JOBS=N                      parallel build jobs (default: all cores)
#   TEST_JOBS=N                 parallel tests (default: JOBS; gpu tests run one at a time)
#   CTEST_ARGS="..."            extra ctest arguments, e.g. CTEST_ARGS="-R cpu"
#   SKIP_DEPS=1                 do not run scripts/install-deps.sh
#   MPI=auto|0|1                the Python package's distributed calls (comm=, mpi4py):
#                               auto builds them where MPI is found and then tests them;
#                               1 requires them (the build fails without MPI, the tests
#                               fail rather than skip); default 1 under CI=true, else auto

SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c

PRESET    ?= default
BUILD_DIR ?= $(if $(filter cpu-only,$(PRESET)),build-cpu-only,build)
PREFIX    ?= /usr/local
GPU       ?= auto
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(JOBS)
CMAKE_ARGS ?=
CTEST_ARGS ?=
SKIP_DEPS ?= 0
MPI       ?= $(if $(filter true 1,$(CI)),1,auto)
CLI       := $(BUILD_DIR)/apps/kselect/kselect

# nvcc is often installed without being on PATH.
ifeq ($(shell command -v nvcc 2>/dev/null),)
  ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
    export PATH := /usr/local/cuda/bin:$(PATH)
  endif
endif

.PHONY: all help deps configure build run test python-test install clean gpu-check
.DEFAULT_GOAL := all

all: build

help:
	@sed -n '2,20p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

deps:
ifeq ($(SKIP_DEPS),1)
	@echo "make: SKIP_DEPS=1, not checking build dependencies"
else
	@scripts/install-deps.sh
endif

configure: deps
	cmake --preset $(PRESET) -B $(BUILD_DIR) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kselect_cli
	./$(CLI) demo

# The gpu-labelled tests need a CUDA device; elsewhere they are compiled, not run
# (-LE gpu also matches multigpu, which needs 4 GPUs: scripts/multigpu-check.sh).
test: build
	@if [[ "$(GPU)" == 1 ]] || { [[ "$(GPU)" == auto ]] && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then \
	  gpus=$$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); \
	  if (( gpus >= 4 )); then echo "make test: $$gpus CUDA GPUs, running all tests"; label_args=(); \
	  else echo "make test: CUDA GPU available, running all tests but those labelled multigpu (they need 4 GPUs)"; \
	    label_args=(-LE multigpu); fi; \
	else \
	  echo "make test: no usable CUDA GPU (nvidia-smi -L), skipping tests labelled gpu"; label_args=(-LE gpu); \
	fi; \
	ctest --test-dir $(BUILD_DIR) --output-on-failure --no-tests=error -j $(TEST_JOBS) "$${label_args[@]}" $(CTEST_ARGS)
	$(MAKE) --no-print-directory python-test

# The Python package, built by pip (scikit-build-core) as a user would, in a virtual
# environment (Debian's system Python is externally managed). Without a usable GPU it
# is built CPU-only: the CUDA library is already compiled and tested by `build`, and a
# second CUDA build would double the time; its pytest `gpu` tests are skipped then.
# pip's CMake build stays in $(BUILD_DIR)/pip (incremental, and apart from other
# build directories). With MPI (see MPI= above) the package gets its distributed
# calls and mpi4py (the `mpi` extra), and tests/mpi_python runs under mpirun with
# 1, 2, 3 and 4 processes (oversubscribed on small machines), each run bounded by
# `timeout` on top of the suite's own per-test watchdog.
PY_VENV := $(BUILD_DIR)/python-venv
MPIEXEC ?= mpirun --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1
MPI_NPS ?= 1 2 3 4
python-test:
	@if [[ ! -x $(PY_VENV)/bin/python ]]; then python3 -m venv $(PY_VENV) || \
	  { echo "make python-test: python3 -m venv failed (apt-get install python3-venv)" >&2; exit 1; }; fi
	$(PY_VENV)/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
	@if [[ "$(GPU)" == 1 ]] || { [[ "$(GPU)" == auto ]] && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then \
	  cuda=AUTO; else cuda=OFF; fi; \
	case "$(MPI)" in \
	  1) mpi=ON; extras=test,mpi ;; \
	  0) mpi=OFF; extras=test ;; \
	  *) mpi=AUTO; if command -v mpirun >/dev/null; then extras=test,mpi; else extras=test; fi ;; \
	esac; \
	echo "make python-test: pip install .[$$extras] (KSELECT_WITH_CUDA=$$cuda, KSELECT_WITH_MPI=$$mpi)"; \
	KSELECT_WITH_CUDA=$$cuda KSELECT_WITH_MPI=$$mpi CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY_VENV)/bin/python -m pip \
	  install -q --disable-pip-version-check -C build-dir=$(abspath $(BUILD_DIR))/pip/{wheel_tag} ".[$$extras]"
	cd $(BUILD_DIR) && $(abspath $(PY_VENV))/bin/python -m pytest -q -p no:cacheprovider $(abspath tests/python)
	@if [[ "$(MPI)" != 0 ]] && $(PY_VENV)/bin/python -c "import kselect, sys; sys.exit(not kselect.mpi_available())"; then \
	  for np in $(MPI_NPS); do \
	    echo "make python-test: tests/mpi_python under $(MPIEXEC) -np $$np"; \
	    ( cd $(BUILD_DIR) && KSELECT_REQUIRE_MPI=$(if $(filter 1,$(MPI)),1,0) OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
	      timeout 900 $(MPIEXEC) -np $$np $(abspath $(PY_VENV))/bin/python -m pytest -q --color=no \
	      -p no:cacheprovider $(abspath tests/mpi_python) ) || exit 1; \
	  done; \
	elif [[ "$(MPI)" == 1 ]]; then \
	  echo "make python-test: MPI=1 but the package has no distributed calls (kselect.mpi_available() is False)" >&2; \
	  exit 1; \
	else \
	  echo "make python-test: the package was built without MPI (or MPI=0): tests/mpi_python not run"; \
	fi

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

clean:
	rm -rf build build-cpu-only $(filter-out build build-cpu-only,$(BUILD_DIR))

gpu-check:
	BUILD_DIR=$(BUILD_DIR) bash scripts/gpu-check.sh
