#!/usr/bin/env python3
"""The package's plot: time against n (log-log, 2^10 to 2^28) of kselect's Python calls
against torch and cupy on the GPU and NumPy on the CPU, from one run of
bench/python/package_bench.py --json.

Panels: select k = n/2 with the median (dashed), 101 percentiles, top-1024 (sorted, with
indices); the GPU row (CUDA events; kselect on torch tensors, or on CuPy arrays without
torch; the C++ calls as crosses (owning call) and pluses (device API) at the sizes
kselect-owning-bench ran) and the CPU
row (wall-clock; NumPy arrays). Each panel also has the read floor (dotted) and a full
sort (dash-dot). Where a call refused an input (torch.quantile over 2^24 elements) or was not
timed, the panel says so.

usage: bench/python/plot_package.py RUN.json [RUN2.json ...] --out docs/images/package-h100.png
                                   [--title-extra TEXT]
(several files: their rows together, e.g. a --no-cpu run and a --no-gpu run; the title
takes the GPU run's device, date and commit.)
Needs matplotlib only (no GPU): plot on any machine from the JSON.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"kselect": "#1f77b4", "torch": "#2ca02c", "cupy": "#d62728", "numpy": "#ff7f0e", "c++": "#9467bd"}
PANELS = (("select k = n/2 (solid) and median (dashed)", ("select", "median")),
          ("101 percentiles", ("percentiles",)),
          ("top-1024 (sorted, with indices)", ("topk",)))


def power_of_two(n):
    return n >= 1 and n & (n - 1) == 0


def style(row):
    lib, op = row["library"], row["op"]
    if op == "read":
        return {"color": "black", "linestyle": ":", "linewidth": 1.2}
    if op == "sort":
        return {"color": "#7f7f7f", "linestyle": "-.", "linewidth": 1.2}
    return {"color": COLORS.get(lib, "#8c564b"), "linestyle": "--" if op == "median" else "-",
            "linewidth": 2.2 if lib == "kselect" else 1.4, "marker": "o" if lib == "kselect" else ".",
            "markersize": 4}


def series(rows, side, ops, kselect_input):
    """{label: (style row, [(n, ms)])} of the panel's lines, in drawing order."""
    lines = {}
    for r in rows:
        if r["side"] != side or r.get("ms") is None or not power_of_two(r["n"]) or r["library"] == "c++":
            continue
        if r["op"] not in ops and r["op"] not in ("sort", "read"):
            continue
        if r["library"] == "kselect" and r["input"] != kselect_input:
            continue
        lines.setdefault(r["label"], (r, []))[1].append((r["n"], r["ms"]))
    order = {"kselect": 0, "torch": 1, "cupy": 2, "numpy": 3}
    return dict(sorted(lines.items(), key=lambda kv: (kv[1][0]["op"] in ("sort", "read"),
                                                      order.get(kv[1][0]["library"], 9), kv[0])))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("json", nargs="+", help="package_bench.py --json files (e.g. a --no-cpu and a --no-gpu run)")
    p.add_argument("--out", required=True)
    p.add_argument("--title-extra", default="")
    a = p.parse_args()
    runs = [json.load(open(path)) for path in a.json]
    rows = [r for run in runs for r in run["results"]]
    run = next((r for r in runs if r.get("device")), runs[0])  # the GPU run's header, if any
    cpu_run = next((r for r in runs if any(x["side"] == "cpu" for x in r["results"])), run)

    sides = [s for s in ("gpu", "cpu") if any(r["side"] == s and r["library"] == "kselect" for r in rows)]
    if not sides:
        raise SystemExit("plot_package.py: no kselect rows in " + ", ".join(a.json))
    fig, axes = plt.subplots(len(sides), 3, figsize=(16, 5 * len(sides)), squeeze=False)
    for row_axes, side in zip(axes, sides):
        inputs = {r["input"] for r in rows if r["side"] == side and r["library"] == "kselect"}
        kselect_input = "torch" if "torch" in inputs else sorted(inputs)[0]
        for ax, (title, ops) in zip(row_axes, PANELS):
            for label, (first, points) in series(rows, side, ops, kselect_input).items():
                points.sort()
                name = label if first["library"] != "kselect" or side == "cpu" else f"{label} ({kselect_input})"
                ax.plot([n for n, _ in points], [ms for _, ms in points], label=name, **style(first))
            cpp = [r for r in rows if r["side"] == side and r["library"] == "c++" and r["op"] in ops
                   and power_of_two(r["n"]) and r.get("ms") is not None]
            seen = set()
            for r in cpp:
                device = r.get("input") == "device API"  # else the owning call (older runs: no such input)
                name = "C++ device API call" if device else "C++ owning call"
                ax.plot([r["n"]], [r["ms"]], linestyle="none", marker="+" if device else "x", markersize=10,
                        color=COLORS["c++"], label=None if name in seen else name)
                seen.add(name)
            notes = []
            refused = [r for r in rows if r["side"] == side and r["op"] in ops and r.get("error")]
            for label in sorted({r["label"] for r in refused}):
                smallest = min(r["n"] for r in refused if r["label"] == label)
                notes.append(f"{label} refused n >= 2^{smallest.bit_length() - 1}")
            skipped = sorted({(r["label"], r["n"]) for r in rows
                              if r["side"] == side and r["op"] in ops and r.get("skipped")})
            if skipped:
                notes.append("not timed (a call over --max-call-s): " +
                             ", ".join(f"{lab} 2^{n.bit_length() - 1}" for lab, n in skipped))
            if notes:
                ax.text(0.98, 0.02, "\n".join(notes), transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlim(2 ** 9.5, 2 ** 28.5)
            ax.set_xticks([2 ** k for k in range(10, 29, 2)], [f"$2^{{{k}}}$" for k in range(10, 29, 2)])
            ax.grid(which="both", alpha=0.25)
            ax.set_xlabel("n (float32 elements)")
            ax.set_title(f"{side.upper()}: {title}", fontsize=10)
            ax.legend(fontsize=7, loc="upper left")
        unit = ("ms, CUDA events" if side == "gpu" else "ms, wall-clock") + " (lower is better)"
        row_axes[0].set_ylabel(unit)
    versions = {**cpu_run.get("versions", {}), **run.get("versions", {})}
    gpu = f"GPU {run['device']}" if run.get("device") and "gpu" in sides else ""
    cpu = f"CPU {cpu_run.get('cpu', '?')} ({cpu_run.get('cpu_threads', '?')} threads)" if "cpu" in sides else ""
    libs = ", ".join(f"{k} {v}" for k, v in versions.items() if k in ("torch", "cupy", "numpy"))
    stamp = "; ".join(x for x in (gpu, cpu, libs, run.get("date", "")[:10],
                                  f"commit {run['commit']}" if run.get("commit") else "", a.title_extra) if x)
    fig.suptitle(f"kselect's Python package against torch, cupy and NumPy, uniform float32: {stamp}", fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=100)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
