#!/usr/bin/env python3
"""Builds the blind labeller's kit for a captured held-out set (bench/RESULTS.md §9): what an expert reads, and
nothing of kprof's judgement.

    python3 scripts/holdout_label_kit.py <program source> <capture folder> <kit folder>

<capture folder> is what scripts/device/holdout.sh brought back, unpacked (it holds profiles/ncu_holdout[.interrupted]
and profiles/nsys_holdout). The kit gets:
  program.<ext>     the program with its comments and docstrings removed (the designer's intent stays out), and
                    holdout_cases.py beside a Python program that imports it
  ncu/              Nsight Compute's pages of the ncu-mode capture (session, details with every section and rule,
                    raw metrics) and the SASS pages of its source view (no kprof annotation)
  timeline/         the nsys-mode trace as tables: timeline.md, kernels.csv, memcpy.csv, api.csv, overlap.csv
  vocabulary.md     the cause and remedy ids a label is written in (from src/analyze/cause_ids.hpp and remedies.cpp)
kprof's reports, contracts and profile.json are left out: they carry its diagnosis.
"""
import io
import pathlib
import re
import shutil
import sys
import tokenize

ROOT = pathlib.Path(__file__).resolve().parent.parent


def strip_python(text: str) -> str:
    out, prev = [], None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            continue
        # A string statement (a docstring) follows an INDENT, a NEWLINE or nothing.
        if tok.type == tokenize.STRING and (prev is None or prev.type in (tokenize.INDENT, tokenize.NEWLINE,
                                                                            tokenize.DEDENT)):
            out.append((tokenize.STRING, '""'))
        else:
            out.append((tok.type, tok.string))
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            prev = tok
    return tokenize.untokenize(out)


def strip_cpp(text: str) -> str:
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', re.S)
    stripped = pattern.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else "", text)
    return "\n".join(line.rstrip() for line in stripped.splitlines() if line.strip()) + "\n"


def vocabulary() -> str:
    ids = (ROOT / "src/analyze/cause_ids.hpp").read_text()
    causes = re.search(r"enum class CauseId \{(.*?)\};", ids, re.S).group(1)
    causes = [c.strip() for c in re.sub(r"//[^\n]*", "", causes).split(",") if c.strip()]
    # A name may be split over adjacent string literals: joined.
    remedies = [(r, "".join(re.findall(r'"([^"]*)"', text))) for r, text in
                re.findall(r'\{RemedyId::(\w+),\s*((?:"[^"]*"\s*)+)', (ROOT / "src/analyze/remedies.cpp").read_text())]
    lines = ["# Label vocabulary", "",
             "A label names the case's cause (what limits its longest kernel, or the range for a program-level case)"
             " and the first fix an expert would try, each as one of these ids. `none` as the fix: nothing to gain"
             " (at a roof). Whole-run fixes: fuse_stages (fuse kernels, keep an intermediate on chip),"
             " overlap_stages (run independent stages concurrently), host_sync (stop the host waiting between"
             " launches), host_work (move the host's computing between launches off the GPU's path).", "", "## Causes", ""]
    lines += [f"- `{c}`" for c in causes]
    lines += ["", "## Fixes (remedies)", "", "- `none`: nothing left to gain"]
    lines += [f"- `{r}`: {text}" for r, text in remedies]
    for extra in ("fuse_stages", "overlap_stages", "host_sync", "host_work"):
        if extra not in {r for r, _ in remedies}:
            lines.append(f"- `{extra}`")
    return "\n".join(lines) + "\n"


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    program, capture, kit = (pathlib.Path(a) for a in sys.argv[1:])
    kit.mkdir(parents=True, exist_ok=True)
    text = program.read_text()
    (kit / f"program{program.suffix}").write_text(strip_python(text) if program.suffix == ".py" else strip_cpp(text))
    # A Python set imports its case runner from beside it: the labeller reads it too (stripped the same way).
    helper = program.parent / "holdout_cases.py"
    if program.suffix == ".py" and "holdout_cases" in text and helper.exists():
        (kit / "holdout_cases.py").write_text(strip_python(helper.read_text()))
    profiles = capture / "profiles"
    ncu = next((p for p in (profiles / "ncu_holdout", profiles / "ncu_holdout.interrupted") if p.is_dir()), None)
    if ncu is None:
        print(f"no ncu-mode capture under {profiles}", file=sys.stderr)
        return 3
    (kit / "ncu").mkdir(exist_ok=True)
    for page in ("ncu_session.csv", "ncu_details.csv", "ncu_raw.csv"):
        if (ncu / "ncu" / page).exists():
            shutil.copy(ncu / "ncu" / page, kit / "ncu" / page)
    if (ncu / "source").is_dir():
        (kit / "ncu" / "sass").mkdir(exist_ok=True)
        for sass in (ncu / "source").glob("*_sass.csv"):
            shutil.copy(sass, kit / "ncu" / "sass" / sass.name)
    (kit / "timeline").mkdir(exist_ok=True)
    for page in ("timeline.md", "kernels.csv", "memcpy.csv", "api.csv", "overlap.csv"):
        if (profiles / "nsys_holdout" / page).exists():
            shutil.copy(profiles / "nsys_holdout" / page, kit / "timeline" / page)
    (kit / "vocabulary.md").write_text(vocabulary())
    print(f"kit in {kit}: " + ", ".join(sorted(str(p.relative_to(kit)) for p in kit.rglob("*") if p.is_file())[:12]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
