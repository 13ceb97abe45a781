"""API families: the one seam through which kinds, virtual resources (reviews, aggregated APIs),
admission plugins, controllers, scheduler plugins, feature gates, job integrations and cluster add-ons
reach a control plane.

A family is declared once (:class:`Family`, in ``kbatch/families/<name>/``) and listed in
:data:`BUILTIN_FAMILIES`; the control plane, ``kbatch serve`` and the CLI compose the families
(:func:`compose`). This layer imports only :mod:`kbatch.api`; everything above it is referred to by a
lazy ``"module:attribute"`` reference. docs/architecture.md, "Adding an API family", walks through one.
"""

from __future__ import annotations

from kbatch.api.registry import Registry
from kbatch.families.admission_policy import ADMISSION_POLICY
from kbatch.families.autoscaling import AUTOSCALING
from kbatch.families.batch import BATCH
from kbatch.families.composition import (
    AddonSelectionError,
    AdmissionSelectionError,
    Composition,
    compose,
    parse_plugin_list,
)
from kbatch.families.core import CORE
from kbatch.families.coscheduling import COSCHEDULING
from kbatch.families.dra import DRA
from kbatch.families.family import (
    AdmissionPlugin,
    ClusterAddon,
    ControllerSpec,
    Family,
    JobIntegration,
    KindEntry,
    Ref,
    SchedulerPlugin,
    Subresource,
    VirtualResource,
    resolve,
)
from kbatch.families.gang import GANG
from kbatch.families.jobset import JOBSET
from kbatch.families.kueue import KUEUE
from kbatch.families.multicluster import MULTICLUSTER
from kbatch.families.rbac import RBAC
from kbatch.families.storage import STORAGE

__all__ = [
    "ADMISSION_POLICY",
    "AUTOSCALING",
    "BATCH",
    "BUILTIN_FAMILIES",
    "CORE",
    "COSCHEDULING",
    "DRA",
    "GANG",
    "JOBSET",
    "KUEUE",
    "MULTICLUSTER",
    "RBAC",
    "STORAGE",
    "AddonSelectionError",
    "AdmissionPlugin",
    "AdmissionSelectionError",
    "ClusterAddon",
    "Composition",
    "ControllerSpec",
    "Family",
    "JobIntegration",
    "KindEntry",
    "Ref",
    "SchedulerPlugin",
    "Subresource",
    "VirtualResource",
    "builtin",
    "builtin_registry",
    "compose",
    "parse_plugin_list",
    "resolve",
]

BUILTIN_FAMILIES: tuple[Family, ...] = (CORE, BATCH, STORAGE, RBAC, ADMISSION_POLICY, DRA, GANG, COSCHEDULING,
                                        JOBSET, KUEUE, AUTOSCALING, MULTICLUSTER)
"""Every family kbatch ships, in composition order (the order kinds are registered, admission
plugins run and controllers are stepped). Adding a family is one line here. Built-in API groups
before custom resources: a name two kinds share (``podgroups``) resolves to the first, as kubectl
prefers kube's own groups."""


def builtin() -> Composition:
    """The composition of :data:`BUILTIN_FAMILIES`."""
    return compose(BUILTIN_FAMILIES)


def builtin_registry() -> Registry:
    """A fresh registry with every built-in kind."""
    return builtin().registry()
