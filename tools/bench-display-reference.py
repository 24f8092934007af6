#!/usr/bin/env python3
"""Reference for `tools/bench display`: Pillow doing the same convert + bilinear resize.

Usage: bench-display-reference.py SRC_W SRC_H DST_W DST_H ITERATIONS
Prints one JSON object: {"pillow": "<version>", "median_ms": <float>}.
Installs Pillow from PyPI on first use (benchmarks only; the firmware never uses Python).
"""
import json
import subprocess
import sys
import time

try:
    import PIL
    from PIL import Image
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "pillow"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import PIL
    from PIL import Image

sw, sh, dw, dh, iterations = (int(a) for a in sys.argv[1:6])
row = bytes(i & 0xFF for i in range(sw * 3))
data = row * sh
times = []
for _ in range(iterations):
    start = time.perf_counter()
    image = Image.frombytes("RGB", (sw, sh), data)
    if (dw, dh) != (sw, sh):
        image = image.resize((dw, dh), Image.BILINEAR)
    out = image.convert("RGBX").tobytes()
    times.append((time.perf_counter() - start) * 1000)
times.sort()
print(json.dumps({"pillow": PIL.__version__, "median_ms": times[len(times) // 2]}))
