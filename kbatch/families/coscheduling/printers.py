"""``kubectl get`` columns of the scheduler-plugins PodGroup: the CRD's ``additionalPrinterColumns``
(``config/crd/bases/scheduling.x-k8s.io_podgroups.yaml``): Phase, MinMember, Running, Succeeded,
Failed, Age. A missing value is a null cell, as kube-apiserver's custom resource table sends it; it
prints blank in ``kubectl get`` and ``kbatch get`` alike."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kbatch.api.printing import AGE, NAME, Column, Obj, Printer, at, creation_age, name_of

__all__ = ["POD_GROUP"]


def _cells(pg: Obj, now: datetime) -> list[Any]:
    return [name_of(pg), at(pg, "status", "phase"), at(pg, "spec", "minMember"), at(pg, "status", "running"),
            at(pg, "status", "succeeded"), at(pg, "status", "failed"), creation_age(pg, now)]


POD_GROUP = Printer(
    (NAME,
     Column("Phase", description="Current phase of PodGroup."),
     Column("MinMember", "integer",
            description="MinMember defines the minimal number of members/tasks to run the pod group."),
     Column("Running", "integer", description="The number of actively running pods."),
     Column("Succeeded", "integer", description="The number of pods which reached phase Succeeded."),
     Column("Failed", "integer", description="The number of pods which reached phase Failed."),
     AGE),
    _cells)
