#!/usr/bin/env python3
# ===- golden.py - PTX and launch plans pinned byte for byte ---------------===#
#
# Every model and option set in MANIFEST is compiled with opt-fuse to PTX and
# to a launch plan; the SHA-256 of each must match the one recorded in
# hashes.txt. The manifest holds the examples, the benchmark graphs and every
# compile configuration that test/GPU runs on the H200, so a refactor of the
# compiler's back half that keeps these hashes keeps the kernels that were
# checked on the GPU. The examples' and graphs' files are also kept in full
# (text/) so that a review sees what changed.
#
#   golden.py --compiler build/bin/opt-fuse --check     (lit runs this)
#   golden.py --compiler build/bin/opt-fuse --update    (scripts/update-golden.sh)
#
# MLIR's polynomial math is used (--cuda-toolkit=none): the files do not
# depend on which CUDA toolkit, if any, is installed.
#
# ===----------------------------------------------------------------------===#
import argparse
import concurrent.futures
import hashlib
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_manifest():
    entries = []
    with open(os.path.join(HERE, "MANIFEST")) as f:
        for number, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = shlex.split(line)
            if len(fields) < 2:
                sys.exit(f"MANIFEST:{number}: expected 'tag model [options...]'")
            entries.append((fields[0], fields[1], fields[2:]))
    tags = [tag for tag, _, _ in entries]
    duplicates = {tag for tag in tags if tags.count(tag) > 1}
    if duplicates:
        sys.exit(f"MANIFEST: duplicate tags {sorted(duplicates)}")
    return entries


def compile_one(opt_fuse, entry, kind):
    tag, model, options = entry
    command = [opt_fuse, os.path.join(ROOT, model), f"--emit={kind}",
               "--cuda-toolkit=none", *options]
    result = subprocess.run(command, capture_output=True)
    if result.returncode != 0:
        return tag, kind, None, " ".join(command) + "\n" + \
            result.stderr.decode(errors="replace")
    return tag, kind, result.stdout, None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--compiler", required=True)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--update", action="store_true")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    entries = read_manifest()
    jobs = [(entry, kind) for entry in entries for kind in ("ptx", "plan")]
    outputs, failures = {}, []
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        for tag, kind, data, error in pool.map(
                lambda job: compile_one(args.compiler, *job), jobs):
            if error:
                failures.append(f"{tag} ({kind}): compile failed:\n{error}")
            else:
                outputs[(tag, kind)] = data

    hashes_path = os.path.join(HERE, "hashes.txt")
    text_dir = os.path.join(HERE, "text")
    if args.update:
        if failures:
            sys.exit("\n".join(failures))
        with open(hashes_path, "w") as f:
            f.write("# sha256 tag kind: written by scripts/update-golden.sh\n")
            for tag, _, _ in entries:
                for kind in ("ptx", "plan"):
                    digest = hashlib.sha256(outputs[(tag, kind)]).hexdigest()
                    f.write(f"{digest} {tag} {kind}\n")
        os.makedirs(text_dir, exist_ok=True)
        for name in os.listdir(text_dir):
            os.remove(os.path.join(text_dir, name))
        for tag, model, options in entries:
            if options:  # full text only for the models as they come
                continue
            for kind, suffix in (("ptx", ".ptx"), ("plan", ".plan.json")):
                with open(os.path.join(text_dir, tag + suffix), "wb") as f:
                    f.write(outputs[(tag, kind)])
        print(f"golden: {len(entries)} entries written")
        return

    expected = {}
    with open(hashes_path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            digest, tag, kind = line.split()
            expected[(tag, kind)] = digest
    for (tag, kind), data in sorted(outputs.items()):
        digest = hashlib.sha256(data).hexdigest()
        if (tag, kind) not in expected:
            failures.append(f"{tag} ({kind}): not in hashes.txt")
        elif expected[(tag, kind)] != digest:
            failures.append(f"{tag} ({kind}): differs from the recorded "
                            f"{kind}")
    for key in expected:
        if key[0] not in {tag for tag, _, _ in entries}:
            failures.append(f"{key[0]} ({key[1]}): in hashes.txt but not in "
                            "MANIFEST")
    if failures:
        print("\n".join(failures))
        print(f"golden: {len(failures)} of {len(jobs)} differ. If the change "
              "is meant to change kernels or plans, run "
              "scripts/update-golden.sh and review test/Golden/text/ "
              "in the diff.")
        sys.exit(1)
    print(f"golden: {len(jobs)} outputs identical ({len(entries)} entries)")


if __name__ == "__main__":
    main()
