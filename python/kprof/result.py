"""What an analysis returns: the analysed run (stages, kernel groups, metrics, bottlenecks, opportunities, roofline)
and the output contract, all computed by the C++ core; this module only reads them."""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any


class Result:
    """An analysed profile. ``stages``, ``bottleneck``, ``opportunities`` come from the output contract (the same
    JSON as ``kprof analyze --json``), ``metrics`` and ``roofline`` from the analysed run (profile.json)."""

    def __init__(self, reply: dict[str, Any]):
        self._reply = reply
        self.profile: dict[str, Any] = reply.get("profile") or {}
        self.contract_json: dict[str, Any] = reply.get("contract") or {}
        self.dir: Path | None = Path(reply["dir"]) if reply.get("dir") else None
        self.warnings: list[str] = list(reply.get("warnings") or [])
        # What each warning concerns ("trace", "counters", "ncu", "clocks", ...), in the same order.
        self.warning_codes: list[str] = list(reply.get("warning_codes") or [])
        self.comparison: dict[str, Any] | None = reply.get("comparison")
        self.roofline_svg: str = reply.get("roofline_svg") or ""

    # --- the contract ---------------------------------------------------------------------------------------
    @property
    def kernel(self) -> str:
        return self.profile.get("kernel", "")

    @property
    def mode(self) -> str:
        return self.profile.get("mode", "")

    @property
    def stages(self) -> list[dict[str, Any]]:
        """One row per stage and kernel group: duration, launches, bottleneck, key issue, DRAM/occupancy/TC %
        (``scope`` "kernel"); a stage whose range is bound outside its kernels (its GPU idle at least half of each
        instance) leads its rows with one of ``scope`` "range": the typical instance's GPU span, its instances as
        ``launches``, ``kernel`` empty."""
        return list(self.contract_json.get("stages") or [])

    @property
    def bottleneck(self) -> dict[str, Any]:
        """The whole run's bottleneck: kind, title, root cause."""
        return dict(self.contract_json.get("bottleneck") or {})

    @property
    def opportunities(self) -> list[dict[str, Any]]:
        """Every kernel group's ranked opportunities (name, remedy, estimated gain, trigger, what the estimate
        assumes), and the items across kernels (``scope`` "pipeline": fuse or overlap stages; "stage": the host's work in
        one stage's range; "program": launch gaps, host synchronisation; ``stage`` names the stages they join), best first by what the run saves."""
        out = []
        for stage, group in self._groups():
            for o in (group.get("analysis") or {}).get("opportunities") or []:
                out.append({"stage": stage, "kernel": group.get("label") or group.get("kernel"), **o})
        for o in self.profile.get("program_opportunities") or []:
            kernels = o.get("kernels") or []
            if o.get("scope") == "pipeline":
                where = " → ".join(kernels)
            else:  # a stage's or the program's: the stages concerned ("stage · kernel" labels cut at the stage)
                where = ", ".join(dict.fromkeys(k.split(" · ")[0] for k in kernels))
            out.append({"stage": where, "kernel": None, **o})
        out.sort(key=lambda o: -(o.get("run_gain_pct") or 0.0))
        return out

    @property
    def metrics(self) -> dict[str, dict[str, Any]]:
        """Canonical metrics of each kernel group's representative launch, keyed "stage · kernel"."""
        return {f"{stage} · {g.get('label') or g.get('kernel')}": dict(g.get("metrics") or {})
                for stage, g in self._groups()}

    @property
    def roofline(self) -> list[dict[str, Any]]:
        """Each kernel group's roofline placement (intensity, achieved and attainable FLOP/s, the roof)."""
        out = []
        for stage, g in self._groups():
            place = (g.get("analysis") or {}).get("roofline")
            if place:
                out.append({"stage": stage, "kernel": g.get("label") or g.get("kernel"), **place})
        return out

    def _groups(self):
        for stage in self.profile.get("stages") or []:
            for group in stage.get("kernels") or []:
                yield stage.get("name", ""), group

    # --- outputs --------------------------------------------------------------------------------------------
    def contract(self) -> str:
        """The output contract as Markdown (what ``kprof analyze`` prints)."""
        return self._reply.get("contract_markdown", "")

    def to_json(self, indent: int | None = 2) -> str:
        """The output contract as JSON, with ``dir`` (null when nothing was written): what ``kprof analyze --json``
        prints (docs/kprof-json.schema.json)."""
        doc = dict(self.contract_json)
        doc["dir"] = str(self.dir) if self.dir else None
        return json.dumps(doc, indent=indent, ensure_ascii=False)

    def to_dict(self) -> dict[str, Any]:
        return {"contract": self.contract_json, "profile": self.profile, "dir": str(self.dir or ""),
                "warnings": self.warnings}

    def to_pandas(self):
        """One row per stage and kernel group with its duration and canonical metrics; needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Result.to_pandas() needs pandas, which is not importable here "
                              "(install it, e.g. `apt install python3-pandas` or `pip install pandas`); "
                              "Result.stages and Result.metrics give the same data as lists and dicts") from e
        rows = []
        for stage, g in self._groups():
            dur = g.get("duration_ns") or {}
            analysis = g.get("analysis") or {}
            row = {"stage": stage, "kernel": g.get("label") or g.get("kernel"), "launches": dur.get("count"),
                   "duration_us_median": (dur.get("median") or 0.0) / 1e3,
                   "bottleneck": (analysis.get("bottleneck") or {}).get("kind")}
            for k, v in (g.get("metrics") or {}).items():
                if isinstance(v, (int, float)) or v is None:
                    row[k] = v
            rows.append(row)
        return pd.DataFrame(rows)

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(s.get(k, '')))}</td>" for k in
                             ("display", "duration_us", "launches", "bottleneck", "key_issue")) + "</tr>"
            for s in self.stages)
        b = self.bottleneck
        head = (f"<p><b>{html.escape(self.kernel)}</b> ({html.escape(self.mode)}): "
                f"{html.escape(b.get('title', ''))} — {html.escape(b.get('root_cause', ''))}</p>")
        table = ("<table><tr><th>stage · kernel</th><th>µs</th><th>launches</th><th>bottleneck</th>"
                 f"<th>key issue</th></tr>{rows}</table>")
        return head + table + (self.roofline_svg or "<p>(no roofline: no kernel has FLOPs and bytes)</p>")

    def __repr__(self) -> str:
        b = self.bottleneck.get("title", "?")
        return f"<kprof.Result {self.kernel!r} mode={self.mode!r} stages={len(self.stages)} bottleneck={b!r}>"


class Comparison:
    """``kprof compare``: rows with a noise-aware verdict, computed by the C++ core."""

    def __init__(self, reply: dict[str, Any]):
        self.data: dict[str, Any] = reply.get("comparison") or {}
        self._markdown: str = reply.get("markdown", "")

    def markdown(self) -> str:
        return self._markdown

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent, ensure_ascii=False)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return f"<kprof.Comparison {self.data.get('baseline_label', '')!r} → {self.data.get('current_label', '')!r}>"

    def _repr_markdown_(self) -> str:
        return self._markdown
