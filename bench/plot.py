#!/usr/bin/env python3
"""The README's performance plot: the headline cases as bars, kselect against the
read floor, CUB radix sort, torch and cupy, from one GPU run's JSON files.

usage: bench/plot.py --bench RUN.json [--python RUN-torch-cupy.json] [--n 268435456]
                     [--commit C] --out docs/images/performance.png

RUN.json is kselect-gpu-bench --json (float, uniform: "select k=n/2" and "101
percentiles" with floor_ms and cub_sort_ms), RUN-torch-cupy.json is
bench/python/compare_torch_cupy.py --json of the same run. Needs matplotlib.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True)
    p.add_argument("--python")
    p.add_argument("--n", type=int, default=1 << 28)
    p.add_argument("--commit", default="")
    p.add_argument("--out", required=True)
    a = p.parse_args()

    run = json.load(open(a.bench))
    ours = {r["method"]: r for r in run["results"]
            if r["type"] == "float" and r["dist"] == "uniform" and r["n"] == a.n}
    py = json.load(open(a.python))["results"] if a.python else []
    other = {(r["library"], r["op"]): r["ms"] for r in py if r["n"] == a.n and r.get("ms")}

    panels = [
        ("select k = n/2 (median)", ours["select k=n/2"],
         [("torch.median", other.get(("torch", "median"))),
          ("torch.kthvalue", other.get(("torch", "kthvalue(k=n/2)"))),
          ("cupy.median", other.get(("cupy", "median")))]),
        ("101 percentiles", ours["101 percentiles"],
         [("torch.quantile", other.get(("torch", "quantile(101)"))),
          ("cupy.percentile", other.get(("cupy", "percentile(101)")))]),
    ]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, (title, row, libs) in zip(axes, panels):
        bars = [("kselect", row["ours_ms"], "#1f77b4"), ("read floor\n(1 pass)", row["floor_ms"], "#7f7f7f"),
                ("CUB radix\nsort", row["cub_sort_ms"], "#ff7f0e")]
        for name, ms in libs:
            if ms is None:
                continue
            bars.append((name.replace(".", ".\n", 1), ms, "#2ca02c" if name.startswith("torch") else "#d62728"))
        xs = range(len(bars))
        ax.bar(xs, [b[1] for b in bars], color=[b[2] for b in bars])
        for x, (_, ms, _) in zip(xs, bars):
            ax.text(x, ms * 1.15, f"{ms:,.0f}" if ms >= 100 else f"{ms:.3g}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(xs), [b[0] for b in bars], fontsize=8)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[0].set_ylabel("ms (log scale, lower is better)")
    missing = " (torch.quantile refuses more than 2^24 elements)" if ("torch", "quantile(101)") not in other else ""
    stamp = f"{run['device']}, {run['date'][:10]}" + (f", commit {a.commit}" if a.commit else "")
    fig.suptitle(f"2^{a.n.bit_length() - 1} uniform float32 keys: {stamp}{missing}", fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
