"""The report's renderings: for any results, the JSON follows its schema, the JUnit XML follows the
JUnit structure and parses back, and both, and the table's summary, count the same outcomes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from conformance.report import OUTCOMES, Outcome, Result, Run, Semantic, counts, junit, report_json, table
from tests.conformance_suite.validate import validate_json, validate_junit

families = st.sampled_from(["job", "jobset", "kueue"])
semantics = st.builds(
    Semantic, id=st.from_regex(r"[a-z0-9_]{1,8}\.[a-z0-9_]{1,8}", fullmatch=True), family=families,
    title=st.text(min_size=1, max_size=40), source=st.text(min_size=1, max_size=40),
    requires=st.lists(st.sampled_from(["virtual-clock", "kubelet", "faults"]), unique=True).map(tuple))
outcomes = st.builds(Outcome, status=st.sampled_from(OUTCOMES), duration=st.floats(0, 1e5),
                     message=st.text(max_size=60), details=st.text(max_size=200))
results = st.lists(st.builds(Result, semantic=semantics, outcome=outcomes),
                   max_size=12, unique_by=lambda r: r.semantic.id)
runs = st.builds(Run, target=st.text(max_size=30), descriptions=st.lists(st.text(max_size=30)).map(tuple),
                 kubernetes_version=st.none() | st.just("v1.37.0"), seed=st.integers(0, 2**32),
                 families=st.lists(families, unique=True).map(tuple), exit_code=st.sampled_from([0, 1, 5]))


@given(runs, results)
def test_json_and_junit_validate_and_agree(run, found):
    doc = report_json(run, found)
    validate_json(doc)
    root = ET.fromstring(ET.tostring(junit(run, found), encoding="unicode"))  # any text survives XML
    got = validate_junit(root)
    assert got == {k: doc["summary"][k] for k in got} == {k: counts(found)[k] for k in got}
    assert {c.get("name") for c in root.iter("testcase")} == {r.semantic.id for r in found}
    suites = [s.get("name") for s in root.findall("testsuite")]
    assert set(suites) == set(run.families) | {r.semantic.family for r in found}


@given(runs, results)
def test_table_has_one_line_per_semantic_and_the_summary(run, found):
    lines = table(run, found)
    c = counts(found)
    assert lines[0] == f"target: {run.target}" and lines[-1].startswith(
        f"{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped")
    assert sum(1 for ln in lines if ln[:4] in ("PASS", "FAIL", "SKIP", "ERR ")) >= len(found)
