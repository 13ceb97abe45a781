"""CRD-defined kinds print the ``additionalPrinterColumns`` of their upstream CRDs.

Expected columns copied (name, type, priority) from kubernetes-sigs/kueue v0.19.2
``config/components/crd/bases/kueue.x-k8s.io_*.yaml`` and kubernetes-sigs/jobset v0.12.0
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``. A CRD without columns gets the
apiextensions-apiserver default, ``Age`` of type ``date`` on ``.metadata.creationTimestamp``
(k8s.io/apiextensions-apiserver ``pkg/apiserver/helpers.go``); kube-apiextensions-apiserver puts
``Name`` (format ``name``) first in every custom resource Table.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbatch.families import builtin_registry

_REGISTRY = builtin_registry()
NOW = datetime(2026, 6, 1, tzinfo=UTC)

NAME = ("Name", "string", 0)
AGE = ("Age", "date", 0)
CQ = [("Strategy", "string", 1), ("Pending Workloads", "integer", 0), ("Admitted Workloads", "integer", 1)]
WORKLOAD = [("Queue", "string", 0), ("Reserved in", "string", 0), ("Admitted", "string", 0),
            ("Finished", "string", 0), AGE]
LOCAL_QUEUE = [("ClusterQueue", "string", 0), ("Pending Workloads", "integer", 0),
               ("Admitted Workloads", "integer", 0)]

CASES = [
    *[(f"kueue.x-k8s.io/{v}", kind, cols) for v in ("v1beta1", "v1beta2") for kind, cols in [
        ("ClusterQueue", [("Cohort", "string", 0), *CQ]),
        ("LocalQueue", LOCAL_QUEUE),
        ("Workload", WORKLOAD),
        ("WorkloadPriorityClass", [("Value", "integer", 0)]),
        ("ResourceFlavor", [AGE]), ("Cohort", [AGE]), ("AdmissionCheck", [AGE]), ("Topology", [AGE]),
    ]],
    ("jobset.x-k8s.io/v1alpha2", "JobSet", [("TerminalState", "string", 0), ("Restarts", "string", 0),
                                             ("Completed", "string", 0), ("Suspended", "string", 0), AGE]),
]


@pytest.mark.parametrize(("api_version", "kind", "columns"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_crd_printer_columns(api_version: str, kind: str, columns: list[tuple[str, str, int]]) -> None:
    printer = _REGISTRY.for_gvk(api_version, kind).table_printer
    assert [(c.name, c.type, c.priority) for c in printer.columns] == [NAME, *columns]
    assert printer.columns[0].format == "name"


@pytest.mark.parametrize(("api_version", "field"), [("kueue.x-k8s.io/v1beta1", "cohort"),
                                                   ("kueue.x-k8s.io/v1beta2", "cohortName")])
def test_cluster_queue_cohort_json_path(api_version: str, field: str) -> None:
    """The Cohort column's JSONPath differs per version (.spec.cohort vs .spec.cohortName)."""
    cq = {"metadata": {"name": "cq"}, "spec": {field: "team", "queueingStrategy": "BestEffortFIFO"},
          "status": {"pendingWorkloads": 2, "admittedWorkloads": 1}}
    cells = _REGISTRY.for_gvk(api_version, "ClusterQueue").table_printer.cells(cq, NOW)
    assert cells == ["cq", "team", "BestEffortFIFO", 2, 1]


def test_workload_condition_columns() -> None:
    """Admitted/Finished read .status.conditions[?(@.type=='Admitted'|'Finished')].status."""
    wl = {"metadata": {"name": "wl", "creationTimestamp": "2026-05-31T23:00:00Z"},
          "spec": {"queueName": "lq"},
          "status": {"admission": {"clusterQueue": "cq"},
                     "conditions": [{"type": "Admitted", "status": "True"}]}}
    cells = _REGISTRY.for_gvk("kueue.x-k8s.io/v1beta2", "Workload").table_printer.cells(wl, NOW)
    assert cells == ["wl", "lq", "cq", "True", "", "60m"]
