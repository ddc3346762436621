#!/usr/bin/env bash
# Source on the lent GPU machine (no LLVM there): unpacks the Debian packages
# that bench/pack-device-tools.sh downloaded into .device-pack/ and points
# the loader at them, so build/bin/* built here run there.
#   source bench/device-env.sh
pack=${OPFUSE_DEVICE_PACK:-.device-pack}
if [ ! -d /tmp/llvm/usr/lib/llvm-22/lib ]; then
  for d in "$pack"/*.deb; do dpkg -x "$d" /tmp/llvm; done
fi
export LD_LIBRARY_PATH=/tmp/llvm/usr/lib/llvm-22/lib:/tmp/llvm/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
