"""A real PNG of many pixels in a small file (1-bit, all black: 20000x20000 is 0.2 MB), as an
attacker or a careless user might hand the reader: decoded in colour it would take 1.2 GB."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path


def huge_png(path: Path, width: int = 20_000, height: int = 20_000) -> Path:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes((width + 7) // 8)  # filter byte, then the row's bits
    z = zlib.compressobj(9)
    body = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1 bit per pixel, grey
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
    return path
