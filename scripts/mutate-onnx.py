#!/usr/bin/env python3
"""Mutation fuzzing of the ONNX importer: hostile models never crash.

Takes the ONNX text models of test/Import/Inputs, changes numbers (to 0,
-1, 2^31, 2^40, 2^62, ...), op types and input names at random, and runs
`opt-fuse MODEL --emit=summary` on each. Every run must end with one of
opt-fuse's exit codes for bad input (0-4); a signal or a time-out is a
crash, and the model is kept.

  scripts/mutate-onnx.py --opt-fuse build/bin/opt-fuse --seed 1 --count 300
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

OPS = ["Add", "Mul", "MatMul", "Gemm", "Reshape", "Transpose", "Concat",
       "Slice", "Gather", "Expand", "Squeeze", "Unsqueeze", "Softmax",
       "LayerNormalization", "ReduceSum", "ReduceMean", "Conv", "MaxPool",
       "AveragePool", "Split", "Where", "Cast", "Clip", "Range",
       "ConstantOfShape", "Flatten", "Trilu", "BatchNormalization",
       "GlobalAveragePool", "Not", "Xor", "Pow", "Gelu", "LogSoftmax"]
NUMBERS = [0, -1, 1, 2, 3, 7, -7, 2**31, 2**40, 2**62, -2**62, 100000]
NAMES = ["x", "w", "y", "zero", "one", "s", "shape4", "image"]


def mutate(text, rng):
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if r < 0.5:
            found = list(re.finditer(r"-?\b\d+\b", text))
            if found:
                m = rng.choice(found)
                text = text[:m.start()] + str(rng.choice(NUMBERS)) + \
                    text[m.end():]
        elif r < 0.8:
            found = list(re.finditer(r'op_type: "(\w+)"', text))
            if found:
                m = rng.choice(found)
                text = text[:m.start(1)] + rng.choice(OPS) + text[m.end(1):]
        else:
            found = list(re.finditer(r'input: "(\w+)"', text))
            if found:
                m = rng.choice(found)
                text = text[:m.start(1)] + rng.choice(NAMES) + \
                    text[m.end(1):]
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default="build/bin/opt-fuse")
    parser.add_argument("--inputs", default=os.path.join(
        os.path.dirname(__file__), "..", "test", "Import", "Inputs"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--keep", default="onnx-mutation-crashes")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    models = sorted(glob.glob(os.path.join(args.inputs, "*.onnxtxt")))
    codes, crashes = {}, 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.count):
            source = rng.choice(models)
            with open(source) as f:
                text = mutate(f.read(), rng)
            # Beside its inputs, so external-data references resolve.
            path = os.path.join(tmp, os.path.basename(source))
            with open(path, "w") as f:
                f.write(text)
            command = [args.opt_fuse, path, "--emit=summary"]
            for name, shape in (("x", "2x8x16"), ("image", "2x3x16x16")):
                if re.search(r'input \{ name: "%s".*dim_param' % name, text):
                    command += ["--input-shape", f"{name}={shape}"]
            try:
                code = subprocess.run(command, capture_output=True,
                                      timeout=60).returncode
            except subprocess.TimeoutExpired:
                code = "time-out"
            codes[code] = codes.get(code, 0) + 1
            if code not in (0, 1, 2, 3, 4):
                crashes += 1
                os.makedirs(args.keep, exist_ok=True)
                kept = os.path.join(args.keep, f"mutation{args.seed}-{n}.onnxtxt")
                with open(kept, "w") as f:
                    f.write(text)
                print(f"mutate-onnx: crash ({code}) on {kept}")
    summary = ", ".join(f"exit {c}: {k}" for c, k in
                        sorted(codes.items(), key=lambda i: str(i[0])))
    print(f"mutate-onnx: {args.count} mutated models, {crashes} crashes "
          f"({summary})")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
