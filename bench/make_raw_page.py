#!/usr/bin/env python3
"""Writes an Nsight Compute `--set full` raw page of about SIZE_MB megabytes by repeating the data rows of a real
export (default: the H200 corpus program's raw page, 2240 columns) with new launch IDs.

    bench/make_raw_page.py SIZE_MB OUT.csv [SOURCE.csv]
"""
import csv
import io
import sys


def main():
    size = float(sys.argv[1]) * 1e6
    out_path = sys.argv[2]
    src = sys.argv[3] if len(sys.argv) > 3 else "tests/fixtures/h200-corpus/corpus/ncu/ncu/ncu_raw.csv"
    lines = open(src, newline="").read().splitlines(keepends=True)
    records = [l for l in lines if l.startswith('"')]
    header, units, data = records[0], records[1], records[2:]
    id_col = next(csv.reader([header])).index("ID")
    rows = [next(csv.reader([l])) for l in data]
    written = len(header) + len(units)
    with open(out_path, "w", newline="") as out:
        out.write(header)
        out.write(units)
        launch = 0
        while written < size:
            r = list(rows[launch % len(rows)])
            r[id_col] = str(launch)
            buf = io.StringIO()
            csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(r)
            written += out.write(buf.getvalue())
            launch += 1
    print(f"{out_path}: {written / 1e6:.1f} MB, {launch} launches")


if __name__ == "__main__":
    main()
