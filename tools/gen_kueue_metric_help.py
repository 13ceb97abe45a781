"""Generate ``kbatch/controllers/kueue/metrics/help.json``: the HELP text of each Kueue metric family.

A family's HELP line is part of what ``/metrics`` serves (a dashboard or ``promtool`` reads it), so
kbatch serves upstream's, read from kueue's ``pkg/metrics/metrics.go`` rather than retyped: each
``prometheus.*Opts`` literal's ``Subsystem``, ``Name`` and ``Help`` (a raw or quoted string, or a
``+`` concatenation of them). MultiKueue's families (subsystem ``multikueue``) are kept too.

Usage: ``python tools/gen_kueue_metric_help.py KUEUE_GIT_DIR [REF]`` (default ref ``v0.19.2``; the
ref is recorded in the output).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "kbatch" / "controllers" / "kueue" / "metrics" / "help.json"
_SUBSYSTEMS = {"KueueName": "kueue", "MultiKueueName": "multikueue"}
_STRING = r'(?:`[^`]*`|"(?:[^"\\]|\\.)*")'
_OPTS = re.compile(
    r"Subsystem:\s*constants\.(\w+),\s*Name:\s*\"(\w+)\",\s*Help:\s*("
    + _STRING + r"(?:\s*\+\s*" + _STRING + r")*)"
)


def _literal(text: str) -> str:
    """One Go string literal's value: a raw string as is, a quoted one unescaped."""
    if text.startswith("`"):
        return text[1:-1]
    return json.loads(text)


def extract(source: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for subsystem, name, help_ in _OPTS.findall(source):
        parts = re.findall(_STRING, help_)
        out[f"{_SUBSYSTEMS[subsystem]}_{name}"] = "".join(_literal(p) for p in parts)
    return out


def main(git_dir: str, ref: str = "v0.19.2") -> None:
    source = subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:pkg/metrics/metrics.go"],
                            check=True, capture_output=True, text=True).stdout
    helps = extract(source)
    source_name = f"kubernetes-sigs/kueue {ref} pkg/metrics/metrics.go"
    doc = {"source": source_name, "help": dict(sorted(helps.items()))}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(helps)} families")


if __name__ == "__main__":
    main(*sys.argv[1:])
