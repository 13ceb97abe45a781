"""``PodGroupProtection`` admission: every scheduling.k8s.io PodGroup is created with the finalizer
``scheduling.k8s.io/podgroup-protection`` (KEP-4671 "PodGroup Deletion Protection"; the
``podgroup-protection`` controller removes it once no active pod uses the group). Installed only
while the PodGroup kind is served (the GenericWorkload gate)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.scheduling_v1beta1 import PODGROUP_PROTECTION_FINALIZER, PodGroup
from kbatch.apiserver.admission import AdmissionRequest

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["add_finalizer", "install"]


def add_finalizer(request: AdmissionRequest) -> None:
    if request.operation != "CREATE" or not isinstance(request.obj, PodGroup):
        return
    meta = request.obj.metadata
    if PODGROUP_PROTECTION_FINALIZER not in (meta.finalizers or ()):
        meta.finalizers = [*(meta.finalizers or ()), PODGROUP_PROTECTION_FINALIZER]


add_finalizer.admission_metadata_only = True  # type: ignore[attr-defined]


def install(server: APIServer) -> None:
    if PodGroup in server.registry:
        server.admission.add_mutating(PodGroup, add_finalizer, main_resource_only=True)
