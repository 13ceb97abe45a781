"""The suite's report under pytest-xdist (``pytest -n 2``) is a serial run's: the printed table, the
JSON and the JUnit XML (durations aside), each written once, by the controller. A tiny suite of
marked checks against a fake target runs in pytest subprocesses; pytest-xdist is not a kbatch
dependency, so without it only the serial run is checked."""

from __future__ import annotations

import importlib.util
import json
import re
from typing import Any

import pytest

pytest_plugins = ["pytester"]

# A target that stores nothing, serves no ServiceAccount (so a namespace is not waited for) and says
# which module's check built it: two descriptions, ordered by the first check that saw each.
TINY_TARGET = '''
import os


class Tiny:
    def __init__(self):
        module = os.environ["PYTEST_CURRENT_TEST"].partition("::")[0]
        self.description = f"tiny target for {module}"
        self.capabilities = frozenset({"virtual-clock"})
        self.kubernetes_version = "v1.37.0-tiny"

    def create(self, manifest, namespace=None):
        return manifest

    def get(self, kind, name, namespace=None):
        raise LookupError(kind)

    def list(self, kind, namespace=None, label_selector=None):
        return []

    def delete(self, kind, name, namespace=None, propagation_policy=None, grace_period_seconds=None):
        pass
'''

CHECKS_A = '''
import pytest


@pytest.mark.semantic("holds for every n", source="upstream.go A")
@pytest.mark.parametrize("n", range(4))
def test_holds(target, n):
    assert target.namespace


@pytest.mark.semantic("does not hold", source="KEP-1 B")
def test_fails(target):
    assert 1 + 1 == 3, "the semantic does not hold"


@pytest.mark.semantic("needs a kubelet", source="upstream.go C")
@pytest.mark.runs_pods
def test_skipped(target):
    pass
'''

CHECKS_B = '''
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("the target broke")


@pytest.mark.semantic("errors in setup", source="upstream.go D")
def test_errors(target, broken):
    pass


@pytest.mark.semantic("holds as well", source="upstream.go E")
@pytest.mark.parametrize("n", range(3))
def test_holds_too(target, n):
    assert n < 3


def test_not_a_check():
    pass
'''

XDIST = importlib.util.find_spec("xdist") is not None
PLUGIN = ("-p", "conformance.plugin", "-p", "no:randomly", "-p", "no:cacheprovider")
ADDRESS = re.compile(r"0x[0-9a-f]+")
SECTION = re.compile(r"=+ kbatch conformance (?:report|semantics) =+\n(.*?)(?:\n=+ |\Z)", re.S)


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(tiny_target=TINY_TARGET, test_a=CHECKS_A, test_b=CHECKS_B)
    monkeypatch.setenv("KBATCH_CONFORMANCE_TARGET", "tiny_target:Tiny")
    monkeypatch.setenv("KBATCH_CONFORMANCE_SEED", "7")
    return pytester


def _run(suite: pytest.Pytester, name: str, *args: str) -> tuple[int, str, Any, str]:
    """One run (``-p no:randomly``: the same order every time): its exit code, the printed report,
    and the JSON and JUnit reports without what differs between any two runs (durations, and the
    addresses in a failure's ``target = <... at 0x...>``)."""
    json_file, xml_file = suite.path / f"{name}.json", suite.path / f"{name}.xml"
    res = suite.runpytest_subprocess(*PLUGIN, "--conformance-json", str(json_file),
                                     "--conformance-junit-xml", str(xml_file), *args)
    found = SECTION.search(res.stdout.str())
    assert found, res.stdout.str()
    doc = json.loads(ADDRESS.sub("0x", json_file.read_text()))
    for sem in doc["semantics"]:
        sem.pop("duration")
    xml = ADDRESS.sub("0x", re.sub(r' time="[0-9.]+"', "", xml_file.read_text()))
    return int(res.ret), found.group(1), doc, xml


def test_the_serial_report(suite: pytest.Pytester):
    code, table, doc, _ = _run(suite, "serial")
    assert code == 1  # one check failed
    lines = table.splitlines()
    assert lines[:4] == ["target: tiny_target:Tiny", "        tiny target for test_a.py",
                         "        tiny target for test_b.py", "        Kubernetes v1.37.0-tiny"]
    marks = [ln[:4] for ln in lines[5:-1]]
    assert marks == ["PASS"] * 4 + ["FAIL", "SKIP", "ERR "] + ["PASS"] * 3, table
    assert lines[-1] == "7 passed, 1 failed, 1 skipped, 1 errors of 10 semantics"
    by_id = {s["id"]: s for s in doc["semantics"]}
    assert by_id["unregistered.a.fails"]["message"].startswith("AssertionError: the semantic does not hold")
    assert "needs a scheduler and kubelet" in by_id["unregistered.a.skipped"]["message"]
    assert "RuntimeError: the target broke" in by_id["unregistered.b.errors"]["details"]
    assert doc["seed"] == 7 and doc["exitCode"] == 1


@pytest.mark.skipif(not XDIST, reason="pytest-xdist is not installed (kbatch does not depend on it)")
def test_xdist_reports_are_the_serial_ones(suite: pytest.Pytester):
    assert _run(suite, "xdist", "-n", "2") == _run(suite, "serial")
    listed = [_run_listing(suite, *args) for args in ((), ("-n", "2"))]
    assert listed[0] == listed[1] and "10 semantics" in listed[0]


def _run_listing(suite: pytest.Pytester, *args: str) -> str:
    res = suite.runpytest_subprocess(*PLUGIN, "--conformance-list", *args)
    found = SECTION.search(res.stdout.str())
    assert res.ret == 0 and found, res.stdout.str()
    return found.group(1)

