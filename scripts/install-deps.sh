#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages that kselect needs to build and test, and
# only those that are missing. Idempotent: when everything is there it changes
# nothing and downloads nothing (no `apt-get update` either).
#
#   scripts/install-deps.sh           install what is missing (root, or sudo)
#   scripts/install-deps.sh --check   only report; exit 1 if something is missing
#
# A dependency also counts as present when
#   - it is a tool (make, cmake >= 3.25, ninja, g++) found on PATH, or
#   - it is a library staged by scripts/stage-device-deps.sh into the prefix
#     $KSELECT_DEPS_PREFIX (default: <repo>/.deps), as on the offline GPU machine.
# Not needed from apt: the CUDA toolkit (nvcc, CUB/CCCL; optional, in
# /usr/local/cuda) and OpenMP (libgomp ships with g++).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_prefix=${KSELECT_DEPS_PREFIX:-$repo_root/.deps}
check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
  *) echo "install-deps.sh: unknown argument '$1' (use --check or nothing)" >&2; exit 2 ;;
esac

# Debian package -> how to tell it is there without dpkg.
packages=(make cmake ninja-build g++ libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev
          libopenmpi-dev openmpi-bin)

cmake_ok() {  # cmake on PATH and >= 3.25 (the project's minimum)
  local v
  v=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
  [[ -n $v ]] || return 1
  local major=${v%%.*} minor=${v#*.}
  (( major > 3 || (major == 3 && minor >= 25) ))
}

staged() {  # staged <glob relative to the deps prefix>
  compgen -G "$deps_prefix/$1" >/dev/null
}

present_elsewhere() {
  case "$1" in
    make)               command -v make >/dev/null ;;
    cmake)              cmake_ok ;;
    ninja-build)        command -v ninja >/dev/null ;;
    g++)                command -v g++ >/dev/null ;;
    libgtest-dev)       staged 'lib*/cmake/GTest/GTestConfig.cmake' || staged 'lib/*/cmake/GTest/GTestConfig.cmake' ;;
    libgmock-dev)       staged 'lib*/cmake/GTest/GMockTargets.cmake' || staged 'lib/*/cmake/GTest/GMockTargets.cmake' ;;
    libcli11-dev)       staged 'share/cmake/CLI11/CLI11Config.cmake' ;;
    nlohmann-json3-dev) staged 'share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake' ;;
    # Open MPI (the distributed library and its tests): a system install counts, as on
    # the GPU machine, which has Open MPI 4.1 but no apt.
    libopenmpi-dev)     command -v mpicxx >/dev/null && mpicxx --showme:version >/dev/null 2>&1 ;;
    openmpi-bin)        command -v mpirun >/dev/null ;;
    *) return 1 ;;
  esac
}

dpkg_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

have_dpkg=0
command -v dpkg-query >/dev/null && have_dpkg=1

missing=()
for p in "${packages[@]}"; do
  if (( have_dpkg )) && dpkg_installed "$p"; then continue; fi
  if present_elsewhere "$p"; then continue; fi
  missing+=("$p")
done

if (( ${#missing[@]} == 0 )); then
  echo "install-deps: all build dependencies present"
  exit 0
fi

echo "install-deps: missing: ${missing[*]}"
if (( check_only )); then exit 1; fi

if (( ! have_dpkg )) || ! command -v apt-get >/dev/null; then
  echo "install-deps: this is not a Debian/Ubuntu system; install the equivalents of" >&2
  echo "  ${missing[*]}" >&2
  echo "by hand (or stage them with scripts/stage-device-deps.sh into .deps/)." >&2
  exit 1
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then
    sudo_cmd=(sudo)
    [[ -t 0 ]] || sudo_cmd=(sudo -n)  # no terminal (CI): never wait for a password
  else
    echo "install-deps: not root and no sudo; run as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

apt=("${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
if ! "${apt[@]}" update -qq; then
  echo "install-deps: apt-get update failed (no network?). Missing: ${missing[*]}" >&2
  echo "  On an offline machine, stage them: scripts/stage-device-deps.sh on a machine that has them." >&2
  exit 1
fi
"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
