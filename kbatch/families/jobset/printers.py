"""The ``kubectl get jobsets`` columns: the CRD's ``additionalPrinterColumns``
(kubernetes-sigs/jobset v0.12.0 ``api/jobset/v1alpha2/jobset_types.go``, ``+kubebuilder:printcolumn``).

kube-apiserver's custom resource table (apiextensions ``tableconvertor``): ``Name``, then each column's
JSONPath value, ``string`` columns printed as the JSONPath printer prints them (``0``, ``false``), the
``date`` column as an age. A path with no value is a null cell there, which kubectl (and ``kbatch
get``) prints blank; kbatch sends an empty string, which prints the same.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import NAME, Column, Obj, Printer, at, condition, creation_age, name_of

__all__ = ["JOBSET"]


def _json_text(value: Any) -> str:
    """A JSONPath result printed as text (booleans lower case); blank when absent."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _jobset_cells(js: Obj, now: datetime) -> list[Any]:
    completed = condition(js, "Completed")
    completed_status = completed.get("status") if completed else None
    status = js.get("status") or {}
    return [name_of(js), _json_text(status.get("terminalState")), _json_text(status.get("restarts")),
            _json_text(completed_status), _json_text(at(js, "spec", "suspend")), creation_age(js, now)]


JOBSET = Printer(
    (NAME, Column("TerminalState", description="Final state of JobSet"),
     Column("Restarts", description="Number of restarts"), Column("Completed"),
     Column("Suspended", description="JobSet suspended"),
     Column("Age", "date", description="Time this JobSet was created")),
    _jobset_cells)
