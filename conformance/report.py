"""The conformance report: one record per semantic, and its three renderings — the human table, the
JSON document (:data:`conformance.report_schema.SCHEMA`) and JUnit XML for CI systems.

Pure functions from :class:`Run` and :class:`Result` values (a :class:`Semantic` and its
:class:`Outcome`) to text, dicts and XML elements; the
pytest plugin (:mod:`conformance.plugin`) gathers the values and writes the files.

JUnit: one ``<testsuites>`` holding one ``<testsuite>`` per family (``name`` the family,
``<properties>`` the run: target, seed, Kubernetes version, capabilities), one ``<testcase>`` per
semantic (``classname`` ``conformance.<family>``, ``name`` the semantic id, ``time`` its seconds)
with ``<failure>``/``<error>``/``<skipped>`` carrying the message, and ``<system-out>`` its title,
upstream source and requirements. Elements and attributes are those of the junit-10.xsd that Jenkins'
xunit plugin and pytest validate against (``properties`` only on suites), except that an error is
``<error>``, as the Ant schema, Jenkins' JUnit plugin and GitLab read it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["OUTCOMES", "Outcome", "Result", "Run", "Semantic", "counts", "junit", "report_json", "table"]

OUTCOMES = ("passed", "failed", "error", "skipped")
FORMAT_VERSION = "kbatch.dev/conformance-report/v1"


@dataclass(frozen=True)
class Semantic:
    """One documented behaviour a check proves (its ``semantic`` marker and where it lives)."""

    id: str
    """``<family>.<module>.<check>`` without ``test_`` prefixes: stable across installs."""
    family: str
    title: str
    source: str
    """The upstream reference (file, KEP, docs page)."""
    requires: tuple[str, ...] = ()
    """Capabilities the check needs (``virtual-clock``, ``kubelet``, ``faults``)."""
    excludes: tuple[str, ...] = ()
    """Capabilities it cannot run with (``kubelet`` for checks that play the kubelet)."""
    nodeid: str = ""


@dataclass(frozen=True)
class Outcome:
    """How a check, or one phase of it (setup, call, teardown), ended."""

    status: str
    """One of :data:`OUTCOMES`: ``error`` is a failure outside the check (its setup, the target)."""
    duration: float = 0.0
    message: str = ""
    """Why it failed (the assertion, the first lines) or was skipped; empty when it passed."""
    details: str = ""
    """The full failure text (traceback) for failures and errors."""


@dataclass(frozen=True)
class Result:
    """A semantic and how its check ended: its phases' outcomes merged (:func:`conformance.records.merge`)."""

    semantic: Semantic
    outcome: Outcome


@dataclass(frozen=True)
class Run:
    target: str
    """The target factory (``package.module:function``)."""
    descriptions: tuple[str, ...] = ()
    """What each target said about itself (URL, clock, nodes)."""
    kubernetes_version: str | None = None
    capabilities: tuple[str, ...] = ()
    seed: int = 0
    families: tuple[str, ...] = ()
    exit_code: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def counts(results: Iterable[Result]) -> dict[str, int]:
    """How many results had each outcome, plus ``total``."""
    out = dict.fromkeys(OUTCOMES, 0)
    for result in results:
        out[result.outcome.status] = out.get(result.outcome.status, 0) + 1
    out["total"] = sum(out[o] for o in OUTCOMES)
    return out


# -- the human table ----------------------------------------------------------------------------------
_MARK = {"passed": "PASS", "failed": "FAIL", "error": "ERR ", "skipped": "SKIP"}


def table(run: Run, results: Sequence[Result], width: int = 70) -> list[str]:
    """The report as printed at the end of a run: the target, then one line per semantic."""
    lines = [f"target: {run.target}"]
    lines += [f"        {d}" for d in run.descriptions]
    if run.kubernetes_version:
        lines.append(f"        Kubernetes {run.kubernetes_version}")
    lines.append(f"seed: {run.seed}")
    col = min(width, max((len(r.semantic.title) for r in results), default=0))
    for r in results:
        status = r.outcome.status
        lines.append(f"{_MARK.get(status, status.upper()):4}  {r.semantic.title[:col]:<{col}}  "
                     f"{r.semantic.source}")
    c = counts(results)
    errors = f", {c['error']} errors" if c["error"] else ""
    lines.append(f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped{errors} "
                 f"of {c['total']} semantics")
    return lines


# -- JSON -----------------------------------------------------------------------------------------------
def _semantic_json(r: Result) -> dict[str, Any]:
    s, o = r.semantic, r.outcome
    return {"id": s.id, "family": s.family, "title": s.title, "source": s.source,
            "requires": list(s.requires), "excludes": list(s.excludes), "outcome": o.status,
            "duration": round(o.duration, 6), "message": o.message, "details": o.details, "nodeid": s.nodeid}


def report_json(run: Run, results: Sequence[Result]) -> dict[str, Any]:
    """The JSON report (schema: :data:`conformance.report_schema.SCHEMA`)."""
    return {"apiVersion": FORMAT_VERSION, "kind": "ConformanceReport",
            "target": {"factory": run.target, "descriptions": list(run.descriptions),
                       "kubernetesVersion": run.kubernetes_version, "capabilities": list(run.capabilities)},
            "seed": run.seed, "families": list(run.families), "exitCode": run.exit_code,
            "summary": counts(results), "semantics": [_semantic_json(r) for r in results]}


# -- JUnit XML --------------------------------------------------------------------------------------------
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot carry (control characters in a failure's output),
    each shown as ``\\xNN``."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _suite_attrs(name: str, results: Sequence[Result]) -> dict[str, str]:
    c = counts(results)
    return {"name": name, "tests": str(c["total"]), "failures": str(c["failed"]), "errors": str(c["error"]),
            "skipped": str(c["skipped"]), "time": _seconds(sum(r.outcome.duration for r in results))}


def _properties(parent: ET.Element, run: Run) -> None:
    props = ET.SubElement(parent, "properties")
    values = {"target": run.target, "descriptions": " | ".join(run.descriptions),
              "kubernetesVersion": run.kubernetes_version or "", "capabilities": ",".join(run.capabilities),
              "seed": str(run.seed), "formatVersion": FORMAT_VERSION}
    for name, value in values.items():
        ET.SubElement(props, "property", {"name": name, "value": _xml(value)})


def _testcase(parent: ET.Element, r: Result) -> None:
    s, o = r.semantic, r.outcome
    case = ET.SubElement(parent, "testcase", {"classname": _xml(f"conformance.{s.family}"),
                                              "name": _xml(s.id), "time": _seconds(o.duration)})
    if o.status in ("failed", "error"):
        tag = "failure" if o.status == "failed" else "error"
        failure = ET.SubElement(case, tag, {"message": _xml(o.message), "type": tag})
        failure.text = _xml(o.details or o.message)
    elif o.status == "skipped":
        ET.SubElement(case, "skipped", {"message": _xml(o.message), "type": "skipped"})
    requirements = ", ".join([*s.requires, *(f"not {c}" for c in s.excludes)]) or "none"
    ET.SubElement(case, "system-out").text = _xml(f"semantic: {s.title}\nsource: {s.source}\n"
                                                  f"requires: {requirements}\n")


def junit(run: Run, results: Sequence[Result]) -> ET.Element:
    """The ``<testsuites>`` element of the JUnit report."""
    root = ET.Element("testsuites", {k: v for k, v in _suite_attrs("kbatch-conformance", results).items()
                                     if k != "skipped"})  # junit-10.xsd: no skipped count on testsuites
    families = list(dict.fromkeys([*run.families, *(r.semantic.family for r in results)]))
    for family in families:
        mine = [r for r in results if r.semantic.family == family]
        suite = ET.SubElement(root, "testsuite", _suite_attrs(_xml(family), mine))
        _properties(suite, run)
        for r in mine:
            _testcase(suite, r)
    return root
