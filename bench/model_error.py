#!/usr/bin/env python3
"""How far the cost model's predictions are from measured latency.

Runs `opt-fuse MODEL --emit=report-json --bench` on every example and
benchmark graph the GPU emitters support, fused and with --no-fuse, and
compares each kernel's predicted latency with its measured P50 (each kernel
launched alone, timed with CUDA events after warm-up). Prints every kernel,
then the median |predicted - measured| / measured and the worst kernel.

    python3 bench/model_error.py                       # datasheet H200
    python3 bench/model_error.py --target h200.json    # after --calibrate
    python3 bench/model_error.py --set both --fused-only   # tuning and held out

--set picks the graphs: tuning (examples/ and bench/graphs/, what the
model's constants were chosen on), heldout (bench/heldout/, written down
before any fit by bench/heldout_kernels.py and never used to pick a
constant) or both, reported apart: median, 90th percentile and worst
|error| per set.

Models the emitters do not support yet (matmul, reductions, collectives)
are listed as skipped: their predictions exist (--emit=report) but nothing
can be measured.
"""
import argparse
import datetime
import glob
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNSUPPORTED = 4


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--target", default="h200")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--set", choices=("tuning", "heldout", "both"),
                        default="tuning")
    parser.add_argument("--fused-only", action="store_true",
                        help="skip the --no-fuse variant of every graph")
    parser.add_argument("--measured",
                        help="a file of measured P50s (bench/measurements/"
                             "*.json): predict every kernel again, without a "
                             "GPU, and compare with those measurements")
    args = parser.parse_args()
    if args.measured:
        return replay(args)

    models = []
    if args.set in ("tuning", "both"):
        models += [("tuning", m) for m in
                   sorted(glob.glob(os.path.join(ROOT, "examples/*.mlir"))) +
                   sorted(glob.glob(os.path.join(ROOT, "bench/graphs/*.mlir")))]
    if args.set in ("heldout", "both"):
        models += [("heldout", m) for m in
                   sorted(glob.glob(os.path.join(ROOT, "bench/heldout/*.mlir")))]
    rows, skipped = [], []
    variants = ("fused",) if args.fused_only else ("fused", "unfused")
    for group, model in models:
        for variant in variants:
            command = [args.opt_fuse, model, "--emit=report-json", "--bench",
                       "--iters", str(args.iters), "--target", args.target]
            if variant == "unfused":
                command.append("--no-fuse")
            run = subprocess.run(command, capture_output=True, text=True)
            name = os.path.relpath(model, ROOT)
            if run.returncode == UNSUPPORTED:
                if variant == "fused":
                    skipped.append(name)
                continue
            if run.returncode != 0:
                # One graph that fails (a GPU error) is reported, not fatal.
                print(f"{' '.join(command)} failed ({run.returncode}): "
                      f"{run.stderr.strip()[:300]}", file=sys.stderr)
                continue
            report = json.loads(run.stdout)
            for kernel in report["kernels"]:
                m = kernel["measured"]
                rows.append({
                    "set": group, "model": name, "variant": variant, "kernel": kernel["name"],
                    "ops": ",".join(kernel["ops"]), "bytes": kernel["bytes"],
                    "predicted_us": kernel["predicted_us"],
                    "p50_us": m["p50_us"], "p99_us": m["p99_us"],
                    "error": m["error"], "device": report["measured"]["device"],
                    "target": report["target"]["name"],
                    "source": report["target"]["source"],
                })
                r = rows[-1]
                print(f"{r['set']:8} {r['model']:40} {r['variant']:8} "
                      f"{r['kernel']:30} {r['bytes']:>11} "
                      f"{r['predicted_us']:>9.2f} {r['p50_us']:>9.2f} "
                      f"{100 * r['error']:>7.1f}%", flush=True)

    if not rows:
        sys.exit("no kernel could be measured")
    print(f"target: {rows[0]['target']} ({rows[0]['source']}); "
          f"device: {rows[0]['device']}")
    summarize(rows)
    if skipped:
        print("not measurable yet (no GPU emitter): " + ", ".join(skipped))
    if args.json:
        # What --measured reads back: the rows and where they were taken.
        meta = {"device": rows[0]["device"],
                "date": datetime.date.today().isoformat(),
                "command": " ".join(sys.argv)}
        with open(args.json, "w") as out:
            json.dump({"meta": meta, "rows": rows}, out, indent=1)


def summarize(rows):
    for group in sorted({r["set"] for r in rows}):
        members = [r for r in rows if r["set"] == group]
        errors = sorted(abs(r["error"]) for r in members)
        p90 = errors[min(len(errors) - 1, int(0.9 * len(errors)))]
        worst = max(members, key=lambda r: abs(r["error"]))
        print(f"\n{group}: kernels: {len(members)}; median |error| "
              f"{100 * statistics.median(errors):.1f}%; p90 {100 * p90:.1f}%; "
              f"mean {100 * statistics.mean(errors):.1f}%; worst "
              f"{100 * worst['error']:+.1f}% ({worst['model']} "
              f"{worst['kernel']}: predicted {worst['predicted_us']:.2f} us, "
              f"measured {worst['p50_us']:.2f} us)")


def replay(args):
    """The model's predictions now against measurements taken before."""
    with open(args.measured) as f:
        measured = json.load(f)
    print(f"measured: {measured['meta']['device']}, "
          f"{measured['meta']['date']}; target: {args.target}")
    rows, predictions = [], {}
    for row in measured["rows"]:
        if args.set != "both" and row["set"] != args.set:
            continue
        key = (row["model"], row["variant"])
        if key not in predictions:
            command = [args.opt_fuse, os.path.join(ROOT, row["model"]),
                       "--emit=report-json", "--target", args.target]
            if row["variant"] == "unfused":
                command.append("--no-fuse")
            run = subprocess.run(command, capture_output=True, text=True,
                                 check=True)
            predictions[key] = {k["name"]: k["predicted_us"]
                                for k in json.loads(run.stdout)["kernels"]}
        predicted = predictions[key][row["kernel"]]
        error = (predicted - row["p50_us"]) / row["p50_us"]
        rows.append(dict(row, predicted_us=predicted, error=error))
        print(f"{row['set']:8} {row['model']:40} {row['kernel']:30} "
              f"{predicted:>9.2f} {row['p50_us']:>9.2f} {100 * error:>7.1f}%")
    summarize(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
