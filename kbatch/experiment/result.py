"""What an experiment leaves: every point's report and the summary, in memory and on disk.

``write(DIR)`` lays it out as::

    DIR/summary.json          the rows (kbatch.experiment.summary) with the experiment's name and parameters
    DIR/summary.csv           the same rows, flat: one line per point
    DIR/summary.png           the swept metrics against the swept parameter (with plots)
    DIR/points/03-interval=20/report.json      the point's whole report (`kbatch report -o json`)
    DIR/points/03-interval=20/*.png            its plots (utilisation, queue, durations, gantt)

Every file is rendered before the first is written, so a failure leaves nothing half written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbatch.experiment.plan import Plan
from kbatch.experiment.runner import PointRun
from kbatch.experiment.spec import SummarySpec
from kbatch.experiment.summary import summary_csv, summary_figure, summary_row, summary_table

__all__ = ["ExperimentResult"]


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False) + "\n"


@dataclass(frozen=True, slots=True)
class ExperimentResult:
    plan: Plan
    points: tuple[PointRun, ...]

    @property
    def name(self) -> str:
        return self.plan.name

    @property
    def rows(self) -> list[dict[str, Any]]:
        """One summary row per point, in sweep order."""
        group = self.summary_spec.group
        return [summary_row(p.index, p.label, p.params, p.report, group, p.stopped_early)
                for p in self.points]

    @property
    def summary_spec(self) -> SummarySpec:
        return self.plan.points[0].experiment.spec.summary

    @property
    def metrics(self) -> list[str]:
        return list(self.summary_spec.metrics)

    @property
    def x(self) -> str | None:
        return self.plan.points[0].experiment.spec.summary.x or (self.plan.parameters or (None,))[0]

    def to_dict(self) -> dict[str, Any]:
        """``summary.json``: the name, parameters, swept axis and metrics, and the rows."""
        return {"name": self.name, "parameters": list(self.plan.parameters), "x": self.x,
                "metrics": self.metrics, "by": self.summary_spec.by, "group": self.summary_spec.group,
                "points": self.rows}

    def table(self, width: int = 200) -> str:
        return summary_table(self.name, self.rows, self.metrics, width, self.summary_spec.by)

    def files(self, plots: bool = True) -> dict[str, bytes]:
        """Every file ``write`` writes, by relative path."""
        out = {"summary.json": _json(self.to_dict()).encode(), "summary.csv": summary_csv(self.rows).encode()}
        if plots:
            from kbatch.reporting.plots import png_bytes

            out["summary.png"] = png_bytes(summary_figure(self.name, self.rows, self.x, self.metrics))
        total = len(self.points)
        for p in self.points:
            folder = f"points/{self.plan.points[p.index].point.directory(total)}"
            out[f"{folder}/report.json"] = _json(p.report).encode()
            out |= {f"{folder}/{name}.png": data for name, data in p.plots}
        return out

    def write(self, directory: str | Path, plots: bool = True) -> list[Path]:
        """Write the files under ``directory`` (created); returns their paths."""
        files = self.files(plots)
        root = Path(directory)
        written = []
        for rel, data in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(path)
        return written
