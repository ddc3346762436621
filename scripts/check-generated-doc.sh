#!/usr/bin/env bash
#===- scripts/check-generated-doc.sh - A committed reference is current ----===#
#
# check-generated-doc.sh GENERATED COMMITTED: passes when the reference that
# mlir-tblgen generated from ODS equals the copy committed under docs/;
# otherwise prints the diff and the command that refreshes the copy.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
generated=$1
committed=$2
if [ ! -f "$generated" ]; then
  echo "check-generated-doc: $generated was not generated (build first)" >&2
  exit 1
fi
if diff -u "$committed" "$generated"; then
  echo "check-generated-doc: $committed is up to date"
  exit 0
fi
echo "check-generated-doc: $committed is stale (- committed, + generated from ODS); run: make docs"
exit 1
