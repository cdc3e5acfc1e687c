#!/usr/bin/env python3
"""Writes hills.png: a 64 x 64 8-bit grey height map (a ridge, two hills and a pit) for the
shallow-water terrain preset "png". Plain zlib, no dependencies: python3 make_hills.py"""
import math
import struct
import zlib

W = H = 64


def height(x, y):
    u, v = x / (W - 1), y / (H - 1)
    ridge = 0.55 * math.exp(-((u - 0.75 - 0.1 * math.sin(6 * v)) / 0.08) ** 2)
    hill1 = 0.9 * math.exp(-((u - 0.3) ** 2 + (v - 0.3) ** 2) / 0.01)
    hill2 = 0.6 * math.exp(-((u - 0.45) ** 2 + (v - 0.75) ** 2) / 0.006)
    return min(1.0, ridge + hill1 + hill2)


rows = b"".join(b"\x00" + bytes(int(round(255 * height(x, y))) for x in range(W)) for y in range(H))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0)) +
       chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
open("hills.png", "wb").write(png)
