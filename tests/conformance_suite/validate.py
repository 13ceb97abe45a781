"""Validators of the two machine reports, shared by the tests that produce them.

* JSON: :data:`conformance.report_schema.SCHEMA` through ``jsonschema`` (draft 2020-12).
* JUnit: the structure of ``junit-10.xsd`` (the schema Jenkins' xunit plugin and pytest's own
  tests validate against): the allowed elements under each element, the required and allowed
  attributes, ``time`` as SUREFIRE_TIME, and counts that agree with the testcases. ``<error>`` is
  accepted where that schema spells ``errors``: the Ant schema and the consumers (Jenkins' JUnit
  plugin, GitLab) read ``error``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema

from conformance.report_schema import SCHEMA

__all__ = ["validate_json", "validate_junit"]

SUREFIRE_TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$")

SUITES_ATTRS = {"name", "time", "tests", "failures", "errors"}
SUITE_REQUIRED = {"name", "tests", "failures", "errors"}
SUITE_ATTRS = SUITE_REQUIRED | {"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file",
                                "log", "url", "version"}
SUITE_CHILDREN = {"testsuite", "properties", "testcase", "system-out", "system-err"}
CASE_ATTRS = {"name", "time", "classname", "group"}
CASE_CHILDREN = {"skipped", "error", "errors", "failure", "rerunFailure", "rerunError", "flakyFailure",
                 "flakyError", "system-out", "system-err"}
OUTCOME_ATTRS = {"type", "message"}


def validate_json(doc: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``doc`` follows the report schema."""
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    summary, semantics = doc["summary"], doc["semantics"]
    assert summary["total"] == len(semantics)
    for outcome in ("passed", "failed", "error", "skipped"):
        assert summary[outcome] == sum(1 for s in semantics if s["outcome"] == outcome), outcome
    assert len({s["id"] for s in semantics}) == len(semantics), "semantic ids are unique"


def _attrs(el: ET.Element, allowed: set[str], required: frozenset[str] | set[str] = frozenset()) -> None:
    extra = set(el.attrib) - allowed
    assert not extra, f"<{el.tag}> has attributes {extra} not in the schema"
    assert required <= set(el.attrib), f"<{el.tag}> lacks {required - set(el.attrib)}"
    if "time" in el.attrib:
        assert SUREFIRE_TIME.match(el.attrib["time"]), f"<{el.tag} time={el.attrib['time']!r}>"


def _testcase(case: ET.Element) -> str:
    """Validate one testcase; its outcome: failed, error, skipped or passed."""
    _attrs(case, CASE_ATTRS, {"name"})
    tags = [child.tag for child in case]
    assert set(tags) <= CASE_CHILDREN, f"testcase {case.get('name')}: {set(tags) - CASE_CHILDREN}"
    for child in case:
        if child.tag in ("failure", "error", "errors", "skipped"):
            _attrs(child, OUTCOME_ATTRS)
    outcomes = [t for t in tags if t in ("failure", "error", "errors", "skipped")]
    assert len(outcomes) <= 1, f"testcase {case.get('name')} has outcomes {outcomes}"
    return {"failure": "failed", "error": "error", "errors": "error", "skipped": "skipped"}.get(
        outcomes[0] if outcomes else "", "passed")


def _testsuite(suite: ET.Element) -> dict[str, int]:
    _attrs(suite, SUITE_ATTRS, SUITE_REQUIRED)
    assert {child.tag for child in suite} <= SUITE_CHILDREN
    for props in suite.findall("properties"):
        for prop in props:
            assert prop.tag == "property"
            _attrs(prop, {"name", "value"}, {"name", "value"})
    outcomes = [_testcase(case) for case in suite.findall("testcase")]
    counts = {o: outcomes.count(o) for o in ("passed", "failed", "error", "skipped")}
    assert int(suite.get("tests", -1)) == len(outcomes)
    assert int(suite.get("failures", -1)) == counts["failed"]
    assert int(suite.get("errors", -1)) == counts["error"]
    assert int(suite.get("skipped", counts["skipped"])) == counts["skipped"]
    return counts


def validate_junit(root: ET.Element) -> dict[str, int]:
    """Validate a ``<testsuites>`` document; the outcome counts over all its testcases."""
    assert root.tag == "testsuites", root.tag
    _attrs(root, SUITES_ATTRS)
    total = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for suite in root:
        assert suite.tag == "testsuite", suite.tag
        for outcome, n in _testsuite(suite).items():
            total[outcome] += n
    assert int(root.get("tests", -1)) == sum(total.values())
    assert int(root.get("failures", -1)) == total["failed"]
    return total
