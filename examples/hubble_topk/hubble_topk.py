#!/usr/bin/env python3
"""The k brightest pixels of the Hubble deep field, with their positions, from
the kselect command-line tool, checked against NumPy's stable sort and compared
with torch.topk on the same array.

This is the selection step of radio/optical CLEAN-style source finding: every
iteration asks for the brightest pixels and where they are. The image
(scikit-image's skimage.data.hubble_deep_field(), 872 x 1000 RGB) is turned into
float32 luminance; its 8-bit origin gives many ties, which is where
`--deterministic` matters: of the pixels equal to the k-th brightest value the
ones with the smaller flat index (row-major) are taken, every run.

Usage: python3 hubble_topk.py --kselect PATH/TO/kselect [--k 1000] [--device auto|cpu|cuda]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def luminance(rgb):
    rgb = rgb.astype(np.float32) / np.float32(255)
    return (np.float32(0.2126) * rgb[..., 0] + np.float32(0.7152) * rgb[..., 1] +
            np.float32(0.0722) * rgb[..., 2]).astype(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kselect", required=True, help="path to the kselect binary")
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()

    from skimage import data
    image = luminance(data.hubble_deep_field())
    rows, cols = image.shape
    flat = image.reshape(-1)
    print(f"image: {rows} x {cols} pixels, {np.unique(flat).size} distinct luminances")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "hubble.npy")
        np.save(path, flat)
        cmd = [args.kselect, "--json", "--device", args.device, "topk", "-k", str(args.k), "--largest",
               "--indices", "--sorted", "--deterministic", path]
        t0 = time.perf_counter()
        res = subprocess.run(cmd, capture_output=True, text=True)
        wall = (time.perf_counter() - t0) * 1e3
        if res.returncode != 0:
            sys.exit(f"kselect failed ({res.returncode}): {res.stderr.strip()}")
        out = json.loads(res.stdout)
    values = np.array(out["values"], dtype=np.float32)
    indices = np.array(out["indices"], dtype=np.int64)
    print(f"kselect topk k={args.k} on {out['device']}: {wall:.1f} ms wall for the whole process; "
          f"time_ms {out.get('time_ms')}")

    # Exact reference: NumPy's stable sort by descending value (ties by index).
    order = np.argsort(-flat, kind="stable")[: args.k]
    assert np.array_equal(indices, order), "kselect's deterministic top-k differs from the stable sort"
    assert np.array_equal(values, flat[order]), "values differ from the stable sort's"
    print("matches numpy.argsort(-x, kind='stable')[:k] exactly (values and indices)")

    try:
        import torch
    except ImportError:
        print("torch not available: skipping the torch.topk comparison")
        return
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.from_numpy(flat).to(dev)
    tv, ti = torch.topk(x, args.k, largest=True, sorted=True)
    if dev == "cuda":
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(10):
            start.record()
            torch.topk(x, args.k, largest=True, sorted=True)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        print(f"torch.topk on {dev}: median {sorted(times)[5]:.3f} ms (data already on the GPU)")
    tv, ti = tv.cpu().numpy(), ti.cpu().numpy()
    assert np.array_equal(tv, values), "torch.topk's values differ"
    differ = np.flatnonzero(ti != indices)
    assert np.all(flat[ti[differ]] == values[differ]), "where indices differ the values must be equal"
    print(f"torch.topk: same values; {differ.size} of {args.k} indices differ, all at tied values "
          f"(torch does not promise which tied pixels it takes)")

    print("brightest pixels (row, col, luminance):")
    for i in range(min(10, args.k)):
        r, c = divmod(int(indices[i]), cols)
        print(f"  {r:4d} {c:4d}  {values[i]:.6f}")


if __name__ == "__main__":
    main()
