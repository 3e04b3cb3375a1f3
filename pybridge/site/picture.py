"""A picture of the poset X: its Hasse diagram as a PNG, written by a tiny pure-Python encoder (zlib).

No labels (that would need a font); the colours say the kind of object:
inputs green, layers grey, copy nodes blue, fork objects ``A`` red, outputs black.
Rows are levels (maximal elements at the top, so the data flows downwards); Hasse edges are grey lines.
Files are written atomically (a temporary file in the same folder, then a rename), and an existing file
is overwritten only with ``force``.
"""

from __future__ import annotations

import struct
import zlib

from pybridge.site.fork import Poset

_COLOURS = {
    "input": (40, 160, 60),
    "layer": (120, 120, 120),
    "copy": (60, 110, 220),
    "fork": (210, 50, 50),
    "output": (0, 0, 0),
    "element": (120, 120, 120),
}
_EDGE = (190, 190, 190)


def _png(width: int, height: int, rows: list[bytearray]) -> bytes:
    def chunk(tag: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        )

    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def render_hasse(poset: Poset, outputs: set[str] | None = None, cell: int = 14, box: int = 5) -> bytes:
    """The Hasse diagram of ``poset`` as PNG bytes (levels by longest chain from the top)."""
    outputs = outputs or set()
    level = [0] * poset.n
    uppers: list[list[int]] = [[] for _ in range(poset.n)]
    for lo, hi in poset.covers:
        uppers[lo].append(hi)
    for i in poset.tops_first:  # maximal elements first, so upper covers are done
        for hi in uppers[i]:
            level[i] = max(level[i], level[hi] + 1)
    rows_of: dict[int, list[int]] = {}
    for i in poset.tops_first:
        rows_of.setdefault(level[i], []).append(i)
    width = max(1, max((len(r) for r in rows_of.values()), default=1)) * cell + cell
    height = (max(level, default=0) + 1) * cell * 2 + cell
    width, height = min(width, 8000), min(height, 8000)
    pos: dict[int, tuple[int, int]] = {}
    for lv, members in rows_of.items():
        span = width - cell
        for k, i in enumerate(members):
            x = cell // 2 + (k + 1) * span // (len(members) + 1)
            pos[i] = (min(x, width - 1), min(cell + lv * cell * 2, height - 1))
    img = [bytearray(b"\xff" * (3 * width)) for _ in range(height)]

    def put(x: int, y: int, c: tuple[int, int, int]) -> None:
        if 0 <= x < width and 0 <= y < height:
            img[y][3 * x : 3 * x + 3] = bytes(c)

    for lo, hi in poset.covers:
        (x0, y0), (x1, y1) = pos[lo], pos[hi]
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(steps + 1):
            put(x0 + (x1 - x0) * s // steps, y0 + (y1 - y0) * s // steps, _EDGE)
    for i, (x, y) in pos.items():
        kind = "output" if poset.names[i] in outputs else poset.kinds[i]
        c = _COLOURS.get(kind, _COLOURS["layer"])
        for dy in range(-box // 2, box // 2 + 1):
            for dx in range(-box // 2, box // 2 + 1):
                put(x + dx, y + dy, c)
    return _png(width, height, img)


