#!/usr/bin/env bash
#===- scripts/update-golden.sh - Regenerate the golden PTX and plans -------===#
#
# Rewrites test/Golden/hashes.txt and test/Golden/text/ from the built
# opt-fuse (test/Golden/golden.py says what they hold). Run it only when a
# change is meant to change kernels or launch plans, and say so in the
# commit message.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 test/Golden/golden.py --compiler "${OPT_FUSE:-build/bin/opt-fuse}" --update
