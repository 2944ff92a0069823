#!/usr/bin/env python3
"""How far two independent blind labellings of the held-out sets agree, and kprof's score against each
(bench/RESULTS.md §9u).

    python3 bench/label_agreement.py <folder of second labels> <set> [<set> ...]

The first labels are examples/programs/diag_holdout<N>_expected.toml; the second, <folder>/set<N>.toml, written
by another labeller from the same kit (scripts/holdout_label_kit.py) who saw neither the first labels nor kprof's
diagnosis. kprof is scored against each file by build/release/diagnosis_score (its aliases included), so a case counts
for kprof against a file exactly as the held-out scores count it. Prints, per capture source:
  - the labellers' agreement (cause, first fix; ids as written);
  - kprof against the first labels, against the second, against either;
  - kprof on the cases where the labellers agree (the consensus), where a miss is a miss by both readings.
Cases the scorer leaves out (under the capture's counter share) are left out here too.
"""
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCORE = ROOT / "build/release/diagnosis_score"
SOURCES = ["annotation (ncu)", "annotation (cupti)", "ncu"]


def labels(path):
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    return {(prog, case): (v.get("cause", ""), v.get("fix", "")) for prog, cases in doc.items()
            for case, v in cases.items() if isinstance(v, dict)}


def scored(args):
    """(program.case, source) -> (cause_ok, fix_ok) or None where the scorer left the case out."""
    out = subprocess.run([str(SCORE), *args], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) < 8 or cells[3] not in SOURCES:
            continue
        ok = None if cells[6] == "–" else (cells[6] == "✓", cells[7] == "✓")
        rows[(cells[0], cells[3])] = ok
    return rows


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    folder = pathlib.Path(sys.argv[1])
    sets = sys.argv[2:]
    tot = {s: dict(n=0, a_cause=0, a_fix=0, k1c=0, k1f=0, k2c=0, k2f=0, kec=0, kef=0, cn_c=0, cn_f=0, kc_c=0,
                   kc_f=0) for s in SOURCES}
    per_case = []
    # Per set and source: [cases, second vs first (cause, fix), kprof vs first, kprof vs either].
    per_set = {src: {} for src in SOURCES}
    for n in sets:
        first = ROOT / f"examples/programs/diag_holdout{n}_expected.toml"
        second = folder / f"set{n}.toml"
        l1, l2 = labels(first), labels(second)
        s1 = scored([f"--holdout{n}"])
        s2 = scored(["--labels", str(second)])
        for (prog, case), (c1, f1) in l1.items():
            if (prog, case) not in l2:
                print(f"set {n}: {case} has no second label", file=sys.stderr)
                continue
            c2, f2 = l2[(prog, case)]
            key = f"{prog.replace('diag_holdout', 'lib')}.{case}"  # the scorer's case column
            for src in SOURCES:
                r1, r2 = s1.get((key, src)), s2.get((key, src))
                if r1 is None or r2 is None:
                    continue
                t = tot[src]
                t["n"] += 1
                t["a_cause"] += c1 == c2
                t["a_fix"] += f1 == f2
                t["k1c"] += r1[0]; t["k1f"] += r1[1]
                t["k2c"] += r2[0]; t["k2f"] += r2[1]
                t["kec"] += r1[0] or r2[0]; t["kef"] += r1[1] or r2[1]
                ps = per_set[src].setdefault(n, [0] * 7)
                for i, v in enumerate((1, c1 == c2, f1 == f2, r1[0], r1[1], r1[0] or r2[0], r1[1] or r2[1])):
                    ps[i] += v
                if c1 == c2:
                    t["cn_c"] += 1; t["kc_c"] += r1[0]
                if f1 == f2:
                    t["cn_f"] += 1; t["kc_f"] += r1[1]
                if src == SOURCES[0]:
                    per_case.append((n, case, c1, f1, c2, f2, r1, r2))
    pct = lambda a, b: f"{a}/{b} ({100.0 * a / b:.0f}%)" if b else "–"
    print("| source | labellers agree: cause | fix | kprof vs first: cause | fix | vs second: cause | fix | "
          "vs either: cause | fix | on consensus: cause | fix |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for src in SOURCES:
        t = tot[src]
        print(f"| {src} | {pct(t['a_cause'], t['n'])} | {pct(t['a_fix'], t['n'])} | {pct(t['k1c'], t['n'])} | "
              f"{pct(t['k1f'], t['n'])} | {pct(t['k2c'], t['n'])} | {pct(t['k2f'], t['n'])} | {pct(t['kec'], t['n'])} | "
              f"{pct(t['kef'], t['n'])} | {pct(t['kc_c'], t['cn_c'])} | {pct(t['kc_f'], t['cn_f'])} |")
    print()
    # The per-set bar (cause >= 95%, first fix >= 90% of a set's cases) met by the second labeller read
    # against the first (ids as written), and by kprof against the first labels and against either: how far the
    # bar sits from what a second expert reading the same captures reaches.
    meets = lambda n, c, f: c >= 0.95 * n and f >= 0.90 * n
    print("Sets meeting the per-set bar (cause >= 95%, first fix >= 90%):")
    print()
    print("| source | sets | second labeller vs first | kprof vs first | kprof vs either |")
    print("| --- | ---: | --- | --- | --- |")
    for src in SOURCES:
        ps = per_set[src]
        cols = [[n for n, v in ps.items() if meets(v[0], v[a], v[b])] for a, b in ((1, 2), (3, 4), (5, 6))]
        print(f"| {src} | {len(ps)} | " + " | ".join(f"{len(c)} ({', '.join(map(str, c))})" for c in cols) + " |")
    print()
    print("Per case (annotation with ncu counters): first label / second label; kprof's cause and fix against each "
          "(✓/✗).")
    print()
    print("| set | case | first | second | kprof vs first | kprof vs second |")
    print("| --- | --- | --- | --- | :-: | :-: |")
    mark = lambda r: ("✓" if r[0] else "✗") + ("✓" if r[1] else "✗")
    for n, case, c1, f1, c2, f2, r1, r2 in per_case:
        print(f"| {n} | {case} | {c1} / {f1} | {c2} / {f2} | {mark(r1)} | {mark(r2)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
