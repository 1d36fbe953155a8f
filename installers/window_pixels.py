#!/usr/bin/env python3
"""What a screenshot of the Pagewise window shows, for the smoke tests' scripted clicks (Pillow).

    window_pixels.py links SHOT.png X0 Y0 X1 Y1      # centre of each citation link in the box, one a line
    window_pixels.py highlight SHOT.png X0 Y0 X1 Y1  # how many pixels of the viewer's highlight

A citation link is drawn in the link colour (blue); the viewer's highlight of cited words is a
translucent yellow (orange-edged on a PDF page) over the text. Neither depends on the fonts a
platform draws with, so the smoke test under Wine finds them where Qt's windows platform put them.
"""

from __future__ import annotations

import sys

from PIL import Image


def _box(args: list[str]) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = (int(a) for a in args)
    return x0, y0, x1, y1


def links(path: str, box: tuple[int, int, int, int]) -> list[tuple[int, int]]:
    image = Image.open(path).convert("RGB")
    x0, y0, x1, y1 = box
    rows: dict[int, list[int]] = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b = image.getpixel((x, y))
            if b > 100 and r < 60 and b - g > 40:  # (0, 0, 255) on Linux's Fusion, (0, 66, 117) on Windows'
                rows.setdefault(y, []).append(x)
    centres = []
    line: list[int] = []
    for y in [*sorted(rows), None]:
        if line and (y is None or y - line[-1] > 3):  # a gap between lines of links
            xs = [x for row in line for x in rows[row]]
            centres.append(((min(xs) + min(xs) + 12) // 2 + 2, (line[0] + line[-1]) // 2))
            line = []
        if y is not None:
            line.append(y)
    return centres


def highlight(path: str, box: tuple[int, int, int, int]) -> int:
    image = Image.open(path).convert("RGB")
    x0, y0, x1, y1 = box
    count = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            r, g, b = image.getpixel((x, y))
            if r > 230 and g > 150 and b < 190 and r - b > 50:  # yellow to orange, never white or grey
                count += 1
    return count


def main(argv: list[str]) -> int:
    what, path, *box = argv
    if what == "links":
        for x, y in links(path, _box(box)):
            print(x, y)
    elif what == "highlight":
        print(highlight(path, _box(box)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
