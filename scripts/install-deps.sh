#!/usr/bin/env bash
#===- scripts/install-deps.sh - Install opfuse build dependencies ---------===#
#
# Installs the Debian packages opfuse needs to build and test, idempotently:
# a package already installed is not touched, and apt is not called at all when
# everything is present. Run as root (CI and the development machines are).
# With --sanitizers also clang-22 and its runtimes, for the ASan/UBSan build
# and the libFuzzer target (make check-asan, make fuzz-libfuzzer). With
# --browser also Chromium, which test/opt-fuse/svg-browser.test renders the
# SVG pictures with (the test reports as unsupported without it).
#
#===----------------------------------------------------------------------===#
set -euo pipefail

packages=(
  libmlir-22-dev   # MLIR headers, CMake config and libMLIR.so
  mlir-22-tools    # mlir-tblgen (MLIR's CMake config checks for it)
  llvm-22-dev      # LLVM headers; pulls llvm-22-tools (FileCheck, lit, not)
  cmake ninja-build g++ ccache
  libgtest-dev     # GoogleTest for unittests/
  clang-format-22  # the format check of make check (.clang-format)
  python3          # lit
  libonnx-dev libprotobuf-dev  # the ONNX importer (onnx.pb.h, libonnx_proto)
  graphviz         # dot: opt-fuse --emit=graph renders the fused graph as SVG
)
for option in "$@"; do
  case "$option" in
    --sanitizers)
      packages+=(
        clang-22            # the compiler of the sanitizer build
        libclang-rt-22-dev  # ASan, UBSan and libFuzzer runtimes
      ) ;;
    --browser)
      packages+=(chromium) ;;  # headless screenshots of the SVG pictures
    *)
      echo "install-deps: unknown option $option (--sanitizers, --browser)" >&2
      exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
