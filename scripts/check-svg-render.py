#!/usr/bin/env python3
#===- scripts/check-svg-render.py - Look at a picture in a real browser ---===#
#
# check-svg-render.py FILE.svg [--png OUT.png] [--browser chromium]
#
# Renders the SVG in headless Chromium at the size it declares and checks
# the screenshot as a person would glance at it: something is drawn (not a
# blank page), nothing touches the edge of the picture (a legend or label
# running past the view box is cut off there), and the picture fills its
# page (the browser drew the SVG, not an error page). Exit 1 with the
# reason when a check fails, 2 when the browser cannot render at all.
#
#===----------------------------------------------------------------------===#
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA,
    non-interlaced PNG: what Chromium's screenshots are."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    position = 8
    idat = b""
    width = height = depth = colour = interlace = None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type "
                         f"{colour}, interlace {interlace})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (
                    up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def svg_size(path):
    with open(path, encoding="utf-8") as f:
        head = f.read(4096)
    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)(?:pt|px)?"[^>]*'
                      r'\bheight="([\d.]+)(?:pt|px)?"', head)
    if not match:
        raise ValueError("no width and height on the <svg> element")
    scale = 4 / 3 if 'pt"' in head[match.start():match.end()] else 1
    return (int(float(match.group(1)) * scale + 0.5),
            int(float(match.group(2)) * scale + 0.5))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("svg")
    parser.add_argument("--png", help="keep the screenshot here")
    parser.add_argument("--browser", default="chromium")
    args = parser.parse_args()
    browser = shutil.which(args.browser)
    if not browser:
        print(f"check-svg-render: no {args.browser} on PATH")
        return 2
    width, height = svg_size(args.svg)
    with tempfile.TemporaryDirectory() as scratch:
        png = args.png or os.path.join(scratch, "shot.png")
        result = subprocess.run(
            [browser, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--hide-scrollbars", f"--user-data-dir={scratch}/profile",
             f"--window-size={width},{height}", f"--screenshot={png}",
             "file://" + os.path.abspath(args.svg)],
            capture_output=True, text=True, timeout=120)
        if result.returncode != 0 or not os.path.exists(png):
            print(f"check-svg-render: {args.browser} did not render "
                  f"{args.svg}:\n{result.stderr}")
            return 2
        shot_width, shot_height, rows = read_png(png)
    background = rows[0][0]

    def drawn(pixel):
        return sum(abs(a - b) for a, b in zip(pixel, background)) > 24

    total = sum(1 for row in rows for pixel in row if drawn(pixel))
    share = total / float(shot_width * shot_height)
    failures = []
    if share < 0.005:
        failures.append(f"almost nothing drawn ({share:.2%} of the pixels)")
    if share > 0.6:
        failures.append(f"{share:.2%} of the pixels differ from the "
                        "background: not a picture on a plain page")
    edge = 2
    for name, pixels in (
            ("top", [p for row in rows[:edge] for p in row]),
            ("bottom", [p for row in rows[-edge:] for p in row]),
            ("left", [p for row in rows for p in row[:edge]]),
            ("right", [p for row in rows for p in row[-edge:]])):
        touching = sum(1 for p in pixels if drawn(p))
        if touching:
            failures.append(f"{touching} drawn pixels on the {name} edge: "
                            "something runs past the picture")
    print(f"check-svg-render: {args.svg}: {shot_width}x{shot_height}, "
          f"{share:.2%} drawn")
    for failure in failures:
        print(f"check-svg-render: {args.svg}: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
