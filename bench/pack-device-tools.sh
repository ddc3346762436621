#!/usr/bin/env bash
# Gathers what the GPU machine lacks to run test/GPU with lit: LLVM's
# FileCheck, not and count, and lit itself, into .device-pack/ beside the Debian
# packages of ../shared/tools/device-pack.sh (FileCheck needs libLLVM from
# them). Then, there:
#   source bench/device-env.sh
#   python3 .device-pack/lit/lit.py -v test/GPU --param opfuse_build=build \
#     --param llvm_tools=$PWD/.device-pack/llvm-tools
set -euo pipefail
pack=${1:-.device-pack}
mkdir -p "$pack/llvm-tools"
cp /usr/lib/llvm-22/bin/FileCheck /usr/lib/llvm-22/bin/not /usr/lib/llvm-22/bin/count "$pack/llvm-tools/"
rm -rf "$pack/lit"
cp -r /usr/lib/llvm-22/utils/lit "$pack/lit"
cat > "$pack/lit/lit.py" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit.main import main
main()
PY
du -sh "$pack"
