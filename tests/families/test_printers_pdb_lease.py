"""``kubectl get`` columns of PodDisruptionBudget and Lease (upstream
``pkg/printers/internalversion/printers.go`` printPodDisruptionBudget / printLease), also what
``kbatch get`` renders."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kbatch.cli.render import format_table
from kbatch.families.core.printers import LEASE
from kbatch.families.core.printers import POD_DISRUPTION_BUDGET as PDB
from kbatch.server.table import build_table

NOW = datetime(2025, 1, 1, 1, 0, 0, tzinfo=UTC)
CREATED = "2025-01-01T00:00:00Z"


def _pdb(name: str, spec: dict, status: dict | None = None) -> dict:
    return {"metadata": {"name": name, "namespace": "ns", "creationTimestamp": CREATED}, "spec": spec,
            **({"status": status} if status is not None else {})}


@pytest.mark.parametrize(("spec", "status", "want"), [
    ({"minAvailable": 2}, {"disruptionsAllowed": 1}, ["p", "2", "N/A", 1, "60m"]),
    ({"maxUnavailable": "50%"}, {"disruptionsAllowed": 0}, ["p", "N/A", "50%", 0, "60m"]),
    ({}, None, ["p", "N/A", "N/A", 0, "60m"]),  # no status yet: nothing allowed
])
def test_pod_disruption_budget_cells(spec: dict, status: dict | None, want: list) -> None:
    table = build_table([_pdb("p", spec, status)], PDB, NOW)
    assert [(c["name"], c["type"]) for c in table["columnDefinitions"]] == [
        ("Name", "string"), ("Min Available", "string"), ("Max Unavailable", "string"),
        ("Allowed Disruptions", "integer"), ("Age", "string")]
    assert table["rows"][0]["cells"] == want


def test_lease_cells_and_the_cli_table() -> None:
    held = {"metadata": {"name": "kube-scheduler", "namespace": "kube-system", "creationTimestamp": CREATED},
            "spec": {"holderIdentity": "kbatch-0", "leaseDurationSeconds": 15}}
    free = {"metadata": {"name": "free", "namespace": "kube-system", "creationTimestamp": CREATED},
            "spec": {}}
    table = build_table([held, free], LEASE, NOW)
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Holder", "Age"]
    assert [r["cells"] for r in table["rows"]] == [["kube-scheduler", "kbatch-0", "60m"], ["free", "", "60m"]]
    assert format_table(table).splitlines() == [
        "NAME             HOLDER     AGE",
        "kube-scheduler   kbatch-0   60m",
        "free                        60m",
    ]
    pdbs = build_table([_pdb("web", {"minAvailable": "10%"}, {"disruptionsAllowed": 3})], PDB, NOW)
    assert format_table(pdbs).splitlines() == [
        "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE",
        "web    10%             N/A               3                     60m",
    ]
