"""The ``gang`` conformance family's Job-integration check against a kbatch target with the
``WorkloadWithJob`` gate on: the suite's own target keeps it off (upstream's default), where the check
skips, so this runs it where it applies."""

from __future__ import annotations

import pytest

from conformance import kbatch_target
from conformance.gang.test_gang import (
    test_a_job_with_spec_scheduling_gets_its_workload_and_pod_group as check,
)


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
