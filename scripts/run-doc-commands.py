#!/usr/bin/env python3
#===- scripts/run-doc-commands.py - Run a tutorial's commands -------------===#
#
# run-doc-commands.py DOC --source ROOT --build BUILD
#
# Keeps a tutorial from rotting: runs every ```sh block of DOC in order, as a
# reader would from the repository root, and checks what the document shows:
#
#   <!-- file: PATH -->   before a code block: the block is PATH's contents
#                         (relative to ROOT), exactly
#   <!-- output -->       before a ```text block: every non-blank line of it
#                         appears, in order, in the output (stdout and
#                         stderr) of the ```sh block before it; runs of
#                         spaces compare as one, and a line "..." is skipped
#   <!-- gpu -->          before a ```sh block: run only where nvidia-smi
#                         lists a GPU (otherwise reported as skipped)
#
# The commands run in BUILD/doc-run/, where `build` links to BUILD and every
# top-level entry of ROOT (examples/, docs/, ...) is linked, so `build/...`
# paths in the document name the build under test wherever it is.
#
#===----------------------------------------------------------------------===#
import argparse
import os
import re
import shutil
import subprocess
import sys


def blocks(text):
    """(marker, info, body, line) for every fenced block, with the HTML
    comment marker on the nearest non-blank line above it, if any."""
    lines = text.split("\n")
    i = 0
    previous = ""
    while i < len(lines):
        line = lines[i]
        fence = re.match(r"^```(\S*)\s*$", line)
        if fence:
            info = fence.group(1)
            start = i + 1
            end = start
            while end < len(lines) and lines[end] != "```":
                end += 1
            if end == len(lines):
                sys.exit(f"{DOC}:{i + 1}: unterminated code block")
            marker = previous.strip() if previous.strip().startswith("<!--") else ""
            yield marker, info, "\n".join(lines[start:end]) + "\n", i + 1
            previous = ""
            i = end + 1
            continue
        if line.strip():
            previous = line
        i += 1


def squash(line):
    return " ".join(line.split())


def check_output(expected, actual, where):
    actual_lines = [squash(l) for l in actual.split("\n")]
    position = 0
    for want in expected.split("\n"):
        want = squash(want)
        if not want or want == "...":
            continue
        for index in range(position, len(actual_lines)):
            if want in actual_lines[index]:
                position = index + 1
                break
        else:
            print(f"{where}: shown output not produced (in order): {want!r}")
            print("---- actual output ----")
            print(actual)
            return False
    return True


def has_gpu():
    if not shutil.which("nvidia-smi"):
        return False
    result = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return result.returncode == 0 and "GPU" in result.stdout


def main():
    global DOC
    parser = argparse.ArgumentParser()
    parser.add_argument("doc")
    parser.add_argument("--source", required=True)
    parser.add_argument("--build", required=True)
    args = parser.parse_args()
    DOC = args.doc
    source = os.path.abspath(args.source)
    build = os.path.abspath(args.build)
    with open(args.doc, encoding="utf-8") as f:
        text = f.read()

    workdir = os.path.join(build, "doc-run")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    os.symlink(build, os.path.join(workdir, "build"))
    for entry in os.listdir(source):
        if entry in ("build", ".git"):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(workdir, entry))

    gpu = has_gpu()
    failures = 0
    ran = skipped = files = outputs = 0
    last_output = None
    last_where = None
    for marker, info, body, line in blocks(text):
        where = f"{args.doc}:{line}"
        if marker.startswith("<!-- file:"):
            path = marker[len("<!-- file:"):-len("-->")].strip()
            with open(os.path.join(source, path), encoding="utf-8") as f:
                if f.read() != body:
                    print(f"{where}: the block differs from {path}")
                    failures += 1
            files += 1
        elif marker == "<!-- output -->":
            if last_output is None:
                print(f"{where}: output shown before any command ran")
                failures += 1
            elif not check_output(body, last_output, where):
                failures += 1
            outputs += 1
        elif info == "sh":
            if marker == "<!-- gpu -->" and not gpu:
                print(f"{where}: skipped (no GPU here)")
                skipped += 1
                last_output = None
                continue
            print(f"{where}: running\n{body.rstrip()}", flush=True)
            result = subprocess.run(["bash", "-eo", "pipefail", "-c", body],
                                    cwd=workdir, capture_output=True,
                                    text=True)
            last_output = result.stdout + result.stderr
            last_where = where
            ran += 1
            if result.returncode != 0:
                print(f"{where}: exit {result.returncode}\n{last_output}")
                failures += 1
    print(f"run-doc-commands: {ran} command blocks run, {skipped} skipped, "
          f"{files} files and {outputs} outputs checked, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
