#!/usr/bin/env bash
# Stages the third-party build dependencies that an offline machine (the GPU box:
# CUDA, cmake, ninja and gcc, but no internet and no libgtest-dev, libcli11-dev or
# nlohmann-json3-dev) needs, into <repo>/.deps/ (git-ignored), laid out as an
# install prefix:
#
#   .deps/include/{gtest,gmock,CLI,nlohmann}/...
#   .deps/lib/x86_64-linux-gnu/libg{test,mock}{,_main}.a
#   .deps/lib/x86_64-linux-gnu/cmake/GTest/      (GTest and GMock targets)
#   .deps/lib/cmake/GTest/                        (forwarders, for non-multiarch hosts)
#   .deps/share/cmake/{CLI11,nlohmann_json}/
#
# The presets (CMakePresets.json) put .deps on CMAKE_PREFIX_PATH, so `make test`
# or `cmake --preset default` there finds everything; by hand:
#   cmake -S . -B build -DCMAKE_PREFIX_PATH=$PWD/.deps
# Copy it along with the tree (with the device tool: carry ".deps").
#
# Source: the Debian packages on this machine (installed by scripts/install-deps.sh
# when missing). The CMake config files of these packages compute their prefix
# from their own location; the script checks that no copied file hard-codes /usr.
# OpenMP is not staged: libgomp and omp.h come with gcc, which nvcc needs anyway.
#
#   scripts/stage-device-deps.sh [DEST]     (DEST default: <repo>/.deps)
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${1:-$repo_root/.deps}
packages=(libgtest-dev libgmock-dev libcli11-dev nlohmann-json3-dev)

command -v dpkg-query >/dev/null || { echo "stage-device-deps: needs a Debian/Ubuntu machine" >&2; exit 1; }
for p in "${packages[@]}"; do
  if [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) != installed ]]; then
    echo "stage-device-deps: $p is not installed; running scripts/install-deps.sh" >&2
    "$repo_root/scripts/install-deps.sh"
    break
  fi
done

rm -rf "$dest"
mkdir -p "$dest"

# Every regular file of the packages under /usr/include, /usr/lib and /usr/share/cmake,
# at the same path relative to /usr (pkg-config files and docs are left out).
n=0
while IFS= read -r f; do
  [[ -f $f && ! -L $f ]] || continue
  case "$f" in
    /usr/include/*|/usr/share/cmake/*) ;;
    /usr/lib/*/pkgconfig/*|/usr/share/pkgconfig/*) continue ;;
    /usr/lib/*.a|/usr/lib/*/cmake/*) ;;
    *) continue ;;
  esac
  rel=${f#/usr/}
  mkdir -p "$dest/$(dirname "$rel")"
  cp -p "$f" "$dest/$rel"
  n=$((n + 1))
done < <(dpkg -L "${packages[@]}" | sort -u)

# Hosts without Debian multiarch (CMAKE_LIBRARY_ARCHITECTURE empty) look in
# <prefix>/lib/cmake/GTest, not lib/<arch>/cmake/GTest: forward from there.
gtest_dir=$(cd "$dest" && find lib -path "lib/*/cmake/GTest" -type d | head -n1)
if [[ -n $gtest_dir && $gtest_dir != lib/cmake/GTest ]]; then
  mkdir -p "$dest/lib/cmake/GTest"
  for f in GTestConfig.cmake GTestConfigVersion.cmake; do
    printf '# Forwarder written by scripts/stage-device-deps.sh\ninclude("${CMAKE_CURRENT_LIST_DIR}/../../%s/%s")\n' \
      "${gtest_dir#lib/}" "$f" > "$dest/lib/cmake/GTest/$f"
  done
fi

# The config files must locate their prefix relative to themselves. Debian's
# GTest files name /usr only inside a guard for the "/usr move" symlinks
# (if(_realCurr STREQUAL _realOrig) ... endif()), which never fires elsewhere.
# Any other absolute /usr path in a targets file is patched to ${_IMPORT_PREFIX}.
absolute_usr() {  # lines naming /usr outside comments and "/usr move" guards
  awk '/^[[:space:]]*#/ {next}
       /_realOrig/ {guard=1}
       guard && /endif\(\)/ {guard=0; next}
       !guard && /\/usr/ {print FILENAME ":" FNR ": " $0}' "$1"
}
while IFS= read -r f; do
  [[ -n $(absolute_usr "$f") ]] || continue
  if ! grep -q '_IMPORT_PREFIX' "$f"; then
    absolute_usr "$f" >&2
    echo "stage-device-deps: ${f#"$dest"/} hard-codes /usr; fix it by hand" >&2
    exit 1
  fi
  echo "stage-device-deps: patching absolute /usr paths in ${f#"$dest"/}" >&2
  # shellcheck disable=SC2016
  sed -i -E '/_realOrig|STREQUAL/! s#"/usr/(include|lib|share)#"${_IMPORT_PREFIX}/\1#g' "$f"
  if [[ -n $(absolute_usr "$f") ]]; then
    absolute_usr "$f" >&2
    echo "stage-device-deps: ${f#"$dest"/} still hard-codes /usr; fix it by hand" >&2
    exit 1
  fi
done < <(find "$dest" -name '*.cmake')

printf '# Staged by scripts/stage-device-deps.sh on %s from %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(. /etc/os-release && echo "$PRETTY_NAME")" > "$dest/README"
for p in "${packages[@]}"; do
  dpkg-query -W -f='#   ${Package} ${Version}\n' "$p" >> "$dest/README"
done
echo "#   built with $(g++ --version | head -n1)" >> "$dest/README"

size=$(du -sb "$dest" | cut -f1)
echo "stage-device-deps: staged $n files, $((size / 1024)) KiB, into $dest"
if (( size > 20 * 1024 * 1024 )); then
  echo "stage-device-deps: warning: more than 20 MiB" >&2
fi
