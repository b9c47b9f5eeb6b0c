#!/usr/bin/env python3
"""The k brightest pixels of the Hubble deep field, with their positions, from the
kselect Python package (or, with --kselect PATH, the command-line tool), checked
against NumPy's stable sort and compared with torch.topk on the same array.

This is the selection step of radio/optical CLEAN-style source finding: every
iteration asks for the brightest pixels and where they are. The image
(scikit-image's skimage.data.hubble_deep_field(), 872 x 1000 RGB, shipped with
scikit-image) is turned into float32 luminance; its 8-bit origin gives ties (61083
distinct values among 872000 pixels), which is where `deterministic=True` matters:
of the pixels equal to the k-th brightest value the ones with the smaller flat index
(row-major) are taken, every run, as a stable sort takes them. Whether the k-th value
is tied depends on k (the script says): at k = 1000 it is not, at k = 100000 150
pixels share it and 131 of them are taken.

Without scikit-image (--image auto, the default) a generated star field of the same
size and 8-bit origin is used instead, and every line of output says so; --image
hubble insists on the real image and exits with a message without scikit-image.

Devices (--device): auto runs on a torch CUDA tensor when torch with CUDA and
kselect's CUDA backend are there, else on a NumPy array (kselect's CPU backend);
cuda insists on the GPU, cpu on NumPy.

Usage: python3 hubble_topk.py [--k 1000] [--device auto|cpu|cuda] [--image auto|hubble|synthetic]
                              [--kselect PATH/TO/kselect]
Exit status: 0 when every check passed, 1 when one failed, 2 for a missing requirement.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def fail(message):
    print(f"hubble_topk: {message}", file=sys.stderr)
    sys.exit(2)


def luminance(rgb):
    rgb = rgb.astype(np.float32) / np.float32(255)
    return (np.float32(0.2126) * rgb[..., 0] + np.float32(0.7152) * rgb[..., 1] +
            np.float32(0.0722) * rgb[..., 2]).astype(np.float32)


def synthetic_star_field(rows=872, cols=1000, stars=400, seed=0):
    """A stand-in for the Hubble image: faint sky noise with Gaussian stars and galaxies
    of a wide range of brightness, as 8-bit RGB (so with the real image's ties,
    saturated cores included)."""
    rng = np.random.default_rng(seed)
    sky = rng.gamma(2.0, 4.0, size=(rows, cols, 3))
    yy, xx = np.mgrid[0:rows, 0:cols]
    for _ in range(stars):
        r, c = rng.uniform(0, rows), rng.uniform(0, cols)
        width = rng.uniform(0.8, 6.0)
        peak = 255 * rng.pareto(2.0) / 6
        colour = rng.uniform(0.6, 1.0, size=3)
        box = (slice(max(int(r - 5 * width), 0), int(r + 5 * width) + 1),
               slice(max(int(c - 5 * width), 0), int(c + 5 * width) + 1))
        d2 = (yy[box] - r) ** 2 + (xx[box] - c) ** 2
        sky[box] += peak * np.exp(-d2 / (2 * width**2))[..., None] * colour
    return np.clip(np.rint(sky), 0, 255).astype(np.uint8)


def load_image(which):
    """(float32 luminance image, its name as every report line shows it)."""
    if which in ("auto", "hubble"):
        try:
            from skimage import data
        except ImportError:
            if which == "hubble":
                fail("--image hubble needs scikit-image (pip install scikit-image), which ships the image")
            print("scikit-image is not installed: using a GENERATED star field instead of the Hubble deep field "
                  "(pip install scikit-image for the real image)")
        else:
            return luminance(data.hubble_deep_field()), "Hubble deep field"
    return luminance(synthetic_star_field()), "generated star field (not Hubble)"


def torch_cuda():
    """torch when it has a usable CUDA device, else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def median_ms(call, repeats=10):
    call()  # warm-up: first-call set-up is not the selection's cost
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def topk_with_package(flat, k, device):
    """kselect.topk of the flattened image, deterministic and not; returns NumPy arrays
    ((values, indices) deterministic, (values, indices) any ties, where it ran)."""
    try:
        import kselect
    except ImportError:
        fail("the kselect package is not installed (pip install . in the repository), "
             "or give --kselect PATH to use the command-line tool")
    torch = torch_cuda() if device in ("auto", "cuda") else None
    on_gpu = torch is not None and kselect.cuda_available()
    if device == "cuda" and not on_gpu:
        why = ("torch with a CUDA device is not available" if torch is None else
               "kselect was built without its CUDA backend (reinstall with nvcc on PATH)")
        fail(f"--device cuda: {why}")
    if on_gpu:
        x = torch.from_numpy(flat).cuda()  # kselect reads the tensor in place, on the current stream
        where = f"a torch CUDA tensor ({torch.cuda.get_device_name()})"

        def to_numpy(t):
            return t.cpu().numpy()
    else:
        x = flat
        where = "a NumPy array (CPU backend)"

        def to_numpy(a):
            return a

    values, indices = kselect.topk(x, k, deterministic=True)
    any_values, any_indices = kselect.topk(x, k)
    ms = median_ms(lambda: kselect.topk(x, k, deterministic=True))
    print(f"kselect.topk(image.ravel(), k={k}, deterministic=True) on {where}: median {ms:.3f} ms a call")
    return (to_numpy(values), to_numpy(indices)), (to_numpy(any_values), to_numpy(any_indices))


def topk_with_tool(flat, k, tool, device):
    """The same through the command-line tool (--kselect PATH), as the example did first."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "image.npy")
        np.save(path, flat)
        results = []
        for deterministic in (True, False):
            cmd = [tool, "--json", "--device", device, "topk", "-k", str(k), "--largest", "--indices", "--sorted",
                   *(["--deterministic"] if deterministic else []), path]
            t0 = time.perf_counter()
            res = subprocess.run(cmd, capture_output=True, text=True)
            wall = (time.perf_counter() - t0) * 1e3
            if res.returncode != 0:
                print(f"hubble_topk: {' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}", file=sys.stderr)
                sys.exit(1)
            out = json.loads(res.stdout)
            results.append((np.array(out["values"], dtype=np.float32), np.array(out["indices"], dtype=np.int64)))
            if deterministic:
                print(f"kselect topk -k {k} --deterministic on {out['device']}: {wall:.1f} ms wall for the whole "
                      f"process; time_ms {out.get('time_ms')}")
    return results[0], results[1]


def check(flat, k, deterministic, any_ties):
    """Against NumPy's stable sort by descending value (ties by index)."""
    order = np.argsort(-flat, kind="stable")[:k]
    kth = flat[order[-1]]
    tied = int(np.count_nonzero(flat == kth))
    taken = int(np.count_nonzero(flat[order] == kth))
    print(f"the k-th brightest luminance {kth:.6f} is shared by {tied} pixels, of which the top {k} take {taken}")

    values, indices = deterministic
    assert np.array_equal(values, flat[order]), "the values differ from the stable sort's"
    assert np.array_equal(indices, order), "deterministic=True did not take the stable sort's pixels (smaller index)"
    print("deterministic=True: values and indices equal numpy.argsort(-x, kind='stable')[:k]")

    values, indices = any_ties
    assert np.array_equal(values, flat[order]), "the values (without deterministic) differ from the stable sort's"
    assert np.array_equal(flat[indices], values), "the indices do not point at the values"
    assert np.unique(indices).size == k, "an index was returned twice"
    differ = int(np.count_nonzero(indices != order))
    print(f"without deterministic: the same values; {differ} of {k} indices differ from the stable sort's, "
          "all at tied values")
    return order


def compare_with_torch(flat, k, values):
    try:
        import torch
    except ImportError:
        print("torch is not installed: no torch.topk comparison")
        return
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.from_numpy(flat).to(dev)
    tv, ti = torch.topk(x, k, largest=True, sorted=True)

    def call():
        torch.topk(x, k, largest=True, sorted=True)
        if dev == "cuda":
            torch.cuda.synchronize()

    print(f"torch.topk on {dev}: median {median_ms(call):.3f} ms a call (data already there)")
    tv, ti = tv.cpu().numpy(), ti.cpu().numpy()
    assert np.array_equal(tv, values), "torch.topk's values differ"
    assert np.array_equal(flat[ti], tv), "torch.topk's indices do not point at its values"
    differ = int(np.count_nonzero(ti != np.argsort(-flat, kind="stable")[:k]))
    print(f"torch.topk: the same values; {differ} of {k} indices differ from the stable sort's, all at tied values "
          "(torch does not promise which tied pixels it takes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=1000, help="how many pixels (default 1000)")
    ap.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    ap.add_argument("--image", choices=["auto", "hubble", "synthetic"], default="auto",
                    help="auto: the Hubble deep field with scikit-image, else a generated star field")
    ap.add_argument("--kselect", metavar="PATH", help="use the kselect command-line tool at PATH instead of the package")
    args = ap.parse_args()

    image, name = load_image(args.image)
    rows, cols = image.shape
    flat = image.reshape(-1)
    if not 1 <= args.k <= flat.size:
        fail(f"--k must be in 1..{flat.size}")
    print(f"image: {name}, {rows} x {cols} pixels, {np.unique(flat).size} distinct luminances")

    if args.kselect:
        deterministic, any_ties = topk_with_tool(flat, args.k, args.kselect, args.device)
    else:
        deterministic, any_ties = topk_with_package(flat, args.k, args.device)
    try:
        check(flat, args.k, deterministic, any_ties)
        compare_with_torch(flat, args.k, deterministic[0])
    except AssertionError as e:
        print(f"hubble_topk: check failed: {e}", file=sys.stderr)
        sys.exit(1)

    values, indices = deterministic
    print(f"brightest pixels of the {name} (row, col, luminance):")
    for i in range(min(10, args.k)):
        r, c = divmod(int(indices[i]), cols)
        print(f"  {r:4d} {c:4d}  {values[i]:.6f}")
    print("hubble_topk: all checks passed")


if __name__ == "__main__":
    main()
