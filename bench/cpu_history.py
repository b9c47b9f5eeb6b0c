#!/usr/bin/env python3
"""Rows for bench/results/cpu-history.csv from cpu_numpy_bench.py JSON files.

usage: bench/cpu_history.py --machine NAME --commit C --date YYYY-MM-DD FILE.json... >> bench/results/cpu-history.csv
       bench/cpu_history.py --header        (the file's first two lines)

One row per case (dtype, distribution, n) and operation: kselect's median, NumPy's
on the same data in the same run (np.partition for select n/2, np.percentile for
the 101 percentiles), std::nth_element, the read floor and np.load, in ms.
"""
import argparse
import json
import sys

HEADER = ("# kselect CPU backend, medians in ms. numpy: np.partition / np.percentile of the same data in the same "
          "run; std: std::nth_element; read_floor: one parallel pass over the input; np_load: np.load of the .npy. "
          "Machines: devvm2 = 2-core development VM (AMD EPYC Zen 4), h100host = the H100 machine's 16-core host "
          "(Intel Xeon). The latest full run per machine: <machine>-cpu-numpy.txt/.json.\n"
          "date,machine,commit,dtype,dist,n,op,kselect_ms,numpy_ms,std_ms,read_floor_ms,np_load_ms")
OPS = (("select_n/2", "partition", "nth_element"), ("percentiles", "percentile", None))


def fmt(x):
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--header", action="store_true")
    p.add_argument("--machine")
    p.add_argument("--commit")
    p.add_argument("--date")
    p.add_argument("files", nargs="*")
    a = p.parse_args()
    if a.header:
        print(HEADER)
        return
    if not (a.machine and a.commit and a.date and a.files):
        p.error("--machine, --commit, --date and at least one JSON file are required")
    for path in a.files:
        cases = {}
        for r in json.load(open(path))["results"]:
            cases.setdefault((r["dtype"], r["dist"], r["n"]), {})[(r["impl"], r["op"])] = r["median_ms"]
        for (dtype, dist, n), m in sorted(cases.items(), key=lambda c: (c[0][0], c[0][2], c[0][1])):
            for op, numpy_op, std_op in OPS:
                if ("kselect", op) not in m:
                    continue
                row = [a.date, a.machine, a.commit, dtype, dist, n, op, m[("kselect", op)],
                       m.get(("numpy", numpy_op), ""), m.get(("std", std_op), "") if std_op else "",
                       m.get(("floor", "read_floor"), ""), m.get(("numpy", "load"), "")]
                sys.stdout.write(",".join(fmt(x) for x in row) + "\n")


if __name__ == "__main__":
    main()
