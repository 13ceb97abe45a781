"""Feature-gate dependencies (component-base ``featuregate``, v0.37.0-beta.0): an enabled gate whose
dependencies are not all enabled is refused with upstream's message, whatever way the gates are
given. ``TestValidateDependencies`` (``featuregate/feature_gate_test.go``) translated, and the one
dependency kbatch declares: CompositePodGroup needs GenericWorkload (docs/gang.md "Feature gates")."""

from __future__ import annotations

import pytest

from kbatch.api.features import FeatureGateError, FeatureGates, FeatureSpec, Stage
from kbatch.runtime.controlplane import ControlPlane

SPECS = (
    FeatureSpec("FeatureA", False, Stage.ALPHA, depends_on=("FeatureB", "FeatureC")),
    FeatureSpec("FeatureB", False, Stage.ALPHA, depends_on=("FeatureD",)),
    FeatureSpec("FeatureC", False, Stage.ALPHA),
    FeatureSpec("FeatureD", False, Stage.ALPHA),
)


@pytest.mark.parametrize(("flag", "error"), [
    ("FeatureA=true,FeatureB=true,FeatureC=true,FeatureD=true", ""),  # all enabled
    ("FeatureA=true,FeatureB=false,FeatureC=true,FeatureD=true",
     "FeatureA is enabled, but depends on features that are disabled: [FeatureB]"),
    ("FeatureA=true,FeatureB=true,FeatureC=false,FeatureD=true",
     "FeatureA is enabled, but depends on features that are disabled: [FeatureC]"),
    ("FeatureA=true,FeatureB=false,FeatureC=false,FeatureD=true",
     "FeatureA is enabled, but depends on features that are disabled: [FeatureB FeatureC]"),
    ("FeatureA=true,FeatureB=true,FeatureC=true,FeatureD=false",  # transitive
     "FeatureB is enabled, but depends on features that are disabled: [FeatureD]"),
    ("FeatureA=false,FeatureB=false,FeatureC=true,FeatureD=true", ""),  # the dependent is off
    ("", ""),  # all disabled
])
def test_upstream_validate_dependencies(flag: str, error: str) -> None:
    if not error:
        FeatureGates(SPECS, flag)
        return
    with pytest.raises(FeatureGateError) as raised:
        FeatureGates(SPECS, flag)
    assert str(raised.value) == error


def test_two_gates_missing_dependencies_are_listed_together() -> None:
    with pytest.raises(FeatureGateError) as raised:
        FeatureGates(SPECS, "FeatureA=true,FeatureB=true")
    missing = "is enabled, but depends on features that are disabled:"
    assert str(raised.value) == f"[FeatureA {missing} [FeatureC], FeatureB {missing} [FeatureD]]"


def test_a_dependency_on_an_unknown_gate_is_a_declaration_error() -> None:
    with pytest.raises(FeatureGateError, match="cannot add dependency from FeatureA to unknown feature Nope"):
        FeatureGates((FeatureSpec("FeatureA", False, Stage.ALPHA, depends_on=("Nope",)),))


def test_composite_pod_group_needs_generic_workload() -> None:
    with pytest.raises(FeatureGateError) as raised:
        ControlPlane(feature_gates="CompositePodGroup=true")
    assert str(raised.value) == ("CompositePodGroup is enabled, but depends on features that are "
                                 "disabled: [GenericWorkload]")
    with pytest.raises(FeatureGateError, match=r"depends on features that are disabled: \[GenericWorkload\]"):
        ControlPlane(feature_gates="GenericWorkload=false,CompositePodGroup=true")
    cp = ControlPlane(feature_gates="GenericWorkload=true,CompositePodGroup=true")
    assert cp.features.enabled("CompositePodGroup")
