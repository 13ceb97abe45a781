"""The gang family's Job-integration check (``conformance/gang/test_gang.py``, wire form, not collected by
the suite: its target keeps ``WorkloadWithJob`` off, upstream's default, where every check must pass)
against a kbatch target with the gate on, and its skip with the gate off."""

from __future__ import annotations

import pytest

from conformance import kbatch_target
from conformance.gang.test_gang import job_integration_check as check


def test_the_job_integration_check_passes_with_the_gate_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kbatch_target, "FEATURE_GATES", "GenericWorkload=true,WorkloadWithJob=true")
    target = kbatch_target.with_nodes(2)
    target.namespace = "default"  # type: ignore[attr-defined]
    try:
        check(target)
    except pytest.skip.Exception as skipped:  # must apply here: a skip would hide a broken check
        pytest.fail(f"the check skipped with the gate on: {skipped}")


def test_the_job_integration_check_skips_with_the_gate_off() -> None:
    target = kbatch_target.with_nodes(2)
    target.namespace = "default"  # type: ignore[attr-defined]
    with pytest.raises(pytest.skip.Exception, match="WorkloadWithJob off"):
        check(target)
