# Checks the structure of opt-fuse's JSON and SVG outputs and prints a
# summary for FileCheck: every field the documented schema promises, with
# its type, and the totals recomputed from the kernels.
#
#   validate.py report FILE   (docs/report-format.md)
#   validate.py target FILE   (docs/target-format.md)
#   validate.py svg FILE      (the roofline picture)
import json
import sys
import xml.etree.ElementTree as ET


def need(obj, key, kind, where):
    if key not in obj:
        sys.exit(f"{where}: missing {key}")
    value = obj[key]
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        sys.exit(f"{where}: {key} is {type(value).__name__}, not {kind.__name__}")
    return value


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def report(path):
    r = json.load(open(path))
    assert need(r, "format", str, "report") == "opfuse-report"
    assert need(r, "version", int, "report") == 1
    need(r, "function", str, "report")
    need(r, "target", dict, "report")
    for side in ("before", "after"):
        totals = need(r, side, dict, "report")
        for key in ("kernels", "bytes"):
            need(totals, key, int, side)
        for key in ("flops", "predicted_us"):
            need(totals, key, float, side)
    kernels = need(r, "kernels", list, "report")
    if len(kernels) != r["after"]["kernels"]:
        sys.exit("kernels[] disagrees with after.kernels")
    byte_sum = predicted_sum = 0
    for k in kernels:
        where = k.get("name", "kernel")
        for key in ("name", "location", "class", "bound"):
            need(k, key, str, where)
        need(k, "ops", list, where)
        for key in ("bytes", "link_bytes"):
            need(k, key, int, where)
        for key in ("flops", "intensity", "predicted_us"):
            need(k, key, float, where)
        need(k, "fits_in_l2", bool, where)
        parts = need(k, "predicted_parts_us", dict, where)
        for key in ("compute", "memory", "link", "tail", "launch"):
            need(parts, key, float, where)
        if not close(k["predicted_us"], max(parts["compute"], parts["memory"],
                                            parts["link"]) + parts["tail"]
                     + parts["launch"]):
            sys.exit(f"{where}: predicted_us is not max(parts) + tail + launch")
        if k["bound"] not in ("compute", "memory", "communication"):
            sys.exit(f"{where}: bound {k['bound']}")
        byte_sum += k["bytes"]
        predicted_sum += k["predicted_us"]
        if "measured" in k:
            m = k["measured"]
            for key in ("p50_us", "p99_us", "error"):
                need(m, key, float, where)
            if not close(m["error"], (k["predicted_us"] - m["p50_us"]) / m["p50_us"]):
                sys.exit(f"{where}: error is not (predicted - p50) / p50")
    if byte_sum != r["after"]["bytes"] or not close(predicted_sum, r["after"]["predicted_us"]):
        sys.exit("after totals are not the sums over kernels")
    if "memory" in r:
        m = r["memory"]
        for key in ("arena_bytes", "lower_bound", "naive_bytes", "in_place",
                    "input_bytes", "constant_bytes", "output_bytes"):
            need(m, key, int, "memory")
        for key in ("order", "placement"):
            need(m, key, str, "memory")
        if not m["lower_bound"] <= m["arena_bytes"] <= max(m["naive_bytes"], m["arena_bytes"]):
            sys.exit("memory: arena below the lower bound")
        bufs = need(m, "buffers", list, "memory")
        for b in bufs:
            if b["offset"] % 256 or b["offset"] + b["bytes"] > m["arena_bytes"]:
                sys.exit(f"memory: {b['name']} misaligned or outside the arena")
        # Buffers alive at the same step must not overlap, unless one is
        # written in place over the other as it dies (same offset, touching).
        for i, a in enumerate(bufs):
            for b in bufs[i + 1:]:
                together = a["first_step"] <= b["last_step"] and b["first_step"] <= a["last_step"]
                overlap = a["offset"] < b["offset"] + b["bytes"] and b["offset"] < a["offset"] + a["bytes"]
                handover = a["offset"] == b["offset"] and (
                    a["last_step"] == b["first_step"] or b["last_step"] == a["first_step"])
                if together and overlap and not handover:
                    sys.exit(f"memory: {a['name']} and {b['name']} overlap while both alive")
        # The lower bound is the max over steps of the live bytes (256-byte
        # sizes; a handed-over storage counted once).
        steps = max([b["last_step"] for b in bufs], default=-1) + 1
        peak = 0
        for t in range(steps):
            live = {}
            for b in bufs:
                if b["first_step"] <= t <= b["last_step"]:
                    live[b["offset"]] = max(live.get(b["offset"], 0), (b["bytes"] + 255) // 256 * 256)
            peak = max(peak, sum(live.values()))
        if steps and peak != m["lower_bound"]:
            sys.exit(f"memory: live bytes peak at {peak}, not the lower bound {m['lower_bound']}")
    measured = "measured" in r
    if measured:
        for key in ("p50_us", "p99_us", "error"):
            need(r["measured"], key, float, "measured")
        need(r["measured"], "device", str, "measured")
    print(f"report ok: @{r['function']} on {r['target']['name']}, "
          f"{r['before']['kernels']} -> {r['after']['kernels']} kernels, "
          f"bounds {','.join(k['bound'] for k in kernels)}, "
          f"measured {'yes' if measured else 'no'}"
          + (f", arena {r['memory']['arena_bytes']} / bound {r['memory']['lower_bound']}"
             if "memory" in r else ""))


def target(path):
    t = json.load(open(path))
    assert t["format"] == "opfuse-target" and t["version"] == 1
    for key in ("name", "description", "chip", "source"):
        need(t, key, str, "target")
    for key in ("sm_count", "l2_bytes", "shared_memory_per_sm_bytes"):
        need(t, key, int, "target")
    for key in ("hbm_gb_per_s", "l2_gb_per_s", "link_gb_per_s", "fp32_tflops",
                "tf32_tensor_tflops", "fp16_tensor_tflops", "launch_overhead_us",
                "kernel_latency_us", "memory_efficiency", "compute_efficiency",
                "tensor_efficiency"):
        if need(t, key, float, "target") <= 0:
            sys.exit(f"target: {key} is not positive")
    print(f"target ok: {t['name']} {t['chip']}, source: {t['source']}")


def memory_svg(path):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        sys.exit("not an SVG document")
    rects = [r for r in root.iter(ns + "rect") if r.get("class") == "buffer"]
    bound = [l for l in root.iter(ns + "line") if l.get("class") == "lower-bound"]
    ticks = [t for t in root.iter(ns + "text") if t.get("font-size") == "10"]
    print(f"memory svg ok: {len(rects)} buffers, {len(bound)} lower-bound "
          f"line, {len(ticks)} tick labels")
    for t in root.iter(ns + "text"):
        if (t.text or "").startswith("Memory plan") or t.get("class") == "empty":
            print("text:", t.text)


def svg(path):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        sys.exit("not an SVG document")
    circles = root.findall(f".//{ns}circle")
    lines = root.findall(f".//{ns}polyline")
    texts = [t.text or "" for t in root.iter(ns + "text")]
    hollow = [c for c in circles if c.get("class") == "predicted"]
    filled = [c for c in circles if c.get("class") == "measured"]
    print(f"svg ok: {len(lines)} rooflines, {len(hollow)} predicted points, "
          f"{len(filled)} measured points")
    # Layout: every text inside the view box, and no two kernel labels
    # (names or numbers) overlapping, with the writer's width estimate of
    # 0.6 em a character (RooflineSvg.cpp).
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    def box(t):
        size = float(t.get("font-size") or 12)
        w = 0.6 * size * len(t.text or "")
        x = float(t.get("x"))
        if t.get("text-anchor") == "middle":
            x -= w / 2
        elif t.get("text-anchor") == "end":
            x -= w
        y = float(t.get("y"))
        return x, y - size, w, size
    outside = [t.text for t in root.iter(ns + "text")
               if (lambda b: b[0] < 0 or b[1] < 0 or b[0] + b[2] > width or
                   b[1] + b[3] > height)(box(t))]
    labels = [box(t) for t in root.iter(ns + "text")
              if t.get("class") in ("kernel-label", "kernel-number")]
    overlaps = sum(1 for i, a in enumerate(labels) for b in labels[i + 1:]
                   if a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and
                   a[1] < b[1] + b[3] and b[1] < a[1] + a[3])
    print(f"layout: {len(outside)} texts outside the view box, "
          f"{len(labels)} kernel labels, {overlaps} overlapping")
    for t in outside:
        print("outside:", t)
    for t in texts:
        print("text:", t)


{"report": report, "target": target, "svg": svg,
 "memory-svg": memory_svg}[sys.argv[1]](sys.argv[2])
