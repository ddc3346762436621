#!/usr/bin/env bash
# Gathers into .device-pack/ what a GPU machine without LLVM 22 needs to run
# the tools built here and test/GPU: the Debian packages of the shared
# libraries they link (libllvm22, libmlir-22, libz3-4, and libonnx1 and
# libprotobuf32 for the ONNX importer, about 55 MB; apt-get
# download, no root needed), LLVM's FileCheck, not and count, and lit
# itself. Then, there:
#   source bench/device-env.sh
#   python3 .device-pack/lit/lit.py -v test/GPU --param opfuse_build=build \
#     --param llvm_tools=$PWD/.device-pack/llvm-tools
set -euo pipefail
pack=${1:-.device-pack}
mkdir -p "$pack/llvm-tools"
(cd "$pack" && for p in libllvm22 libmlir-22 libz3-4 libonnx1 libprotobuf32; do
  ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null
done)
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
