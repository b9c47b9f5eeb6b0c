#!/usr/bin/env python3
"""Turns kselect-gpu-bench JSON (and optionally the torch/cupy JSON) into the
markdown table committed in bench/results/. Usage: summarize.py BENCH.json [PY.json]"""
import json
import math
import sys


def main():
    bench = json.load(open(sys.argv[1]))
    out = [f"Device: {bench['device']}; {bench['date']}; {bench['timing']}, {bench['reps']} runs.",
           "", "| type | n | distribution | method | ours ms | floor ms | CUB sort ms | ours/floor | sort/ours |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in bench["results"]:
        out.append(f"| {r['type']} | 2^{int(math.log2(r['n']))} | {r['dist']} | {r['method']} | {r['ours_ms']:.3f} | "
                   f"{r['floor_ms']:.3f} | {r['cub_sort_ms']:.3f} | {r['ours_ms'] / r['floor_ms']:.2f} | "
                   f"{r['cub_sort_ms'] / r['ours_ms']:.2f} |" + ("" if r["correct"] else " WRONG"))
    if len(sys.argv) > 2:
        py = json.load(open(sys.argv[2]))
        out += ["", f"Python libraries, same device and session (torch {py['torch']}):", "",
                "| library | op | n | ms |", "|---|---|---|---|"]
        for r in py["results"]:
            ms = f"{r['ms']:.3f}" if r["ms"] is not None else "refused: " + r.get("error", "")
            out.append(f"| {r['library']} | {r['op']} | 2^{int(math.log2(r['n']))} | {ms} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
