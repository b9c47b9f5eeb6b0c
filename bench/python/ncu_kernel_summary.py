#!/usr/bin/env python3
"""Per-kernel summary of an Nsight Compute CSV (ncu --csv --metrics ...).

Groups the launches by kernel (name, grid, block, registers) and prints each group's
launch count and the median of every metric collected. The metrics the segmented
profile uses (bench/results/h100-segmented-kernels.txt):

  ncu --clock-control none --csv -k regex:_kernel --launch-count 40 \\
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,\\
dram__throughput.avg.pct_of_peak_sustained_elapsed,\\
sm__warps_active.avg.pct_of_peak_sustained_active,\\
sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread \\
      build/bench/kselect-segmented-bench --case N --reps 10 > case-N.csv
  python3 bench/python/ncu_kernel_summary.py case-*.csv

Kernels that only generate the benchmark's input (--skip, default uniform/normal/iota)
are left out.
"""
import argparse
import collections
import csv
import re
import statistics

COLUMNS = [  # (metric, heading, scale)
    ("gpu__time_duration.sum", "time_us", 1e-3),
    ("dram__bytes_read.sum", "dram_MB", 1e-6),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram%", 1),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm%", 1),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "occup%", 1),
]


def launches_of(path):
    rows = [line for line in open(path) if line.startswith('"')]
    launches = collections.OrderedDict()
    for r in csv.DictReader(rows):
        m = re.search(r"(\w+_kernel)\b", r["Kernel Name"])
        name = m.group(1) if m else r["Kernel Name"][:40]
        d = launches.setdefault(r["ID"], {"name": name, "grid": r["Grid Size"], "block": r["Block Size"]})
        d[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return launches.values()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--skip", default="uniform_kernel,normal_kernel,iota_kernel")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    for path in args.csv:
        groups = collections.OrderedDict()
        for d in launches_of(path):
            if d["name"] in skip:
                continue
            regs = int(d.get("launch__registers_per_thread", 0))
            key = (d["name"], d["grid"].split(",")[0].strip("( "), d["block"].split(",")[0].strip("( "), regs)
            groups.setdefault(key, []).append(d)
        print(f"== {path}")
        print(f'{"kernel":<24} {"grid":>6} {"block":>5} {"regs":>4} {"n":>3} ' +
              " ".join(f"{h:>9}" for _, h, _ in COLUMNS))
        for (name, grid, block, regs), ds in groups.items():
            cells = []
            for metric, _, scale in COLUMNS:
                values = [x[metric] for x in ds if metric in x]
                cells.append(f"{statistics.median(values) * scale:9.1f}" if values else f'{"-":>9}')
            print(f"{name:<24} {grid:>6} {block:>5} {regs:>4} {len(ds):>3} " + " ".join(cells))


if __name__ == "__main__":
    main()
