"""The storage family: persistent storage as Kubernetes 1.37 serves it (docs/storage.md).

Kinds: storage.k8s.io/v1 StorageClass and CSIDriver, core/v1 PersistentVolume, all cluster-scoped, with
upstream's defaulting, validation, update rules and ``kubectl get`` columns. core/v1
PersistentVolumeClaim stays in the core family (JobSet's volumeClaimPolicies create claims).

Admission: ``DefaultStorageClass`` (a claim that names no class gets the default one) and
``StorageObjectInUseProtection`` (the pvc-/pv-protection finalizers), with the ``pvc-protection`` and
``pv-protection`` controllers. Controllers ``persistentvolume-binder`` (static binding, provisioning
requests, release and reclaim) and ``simulated-provisioner`` (the ``kbatch.io/simulated``
provisioner). The scheduler's VolumeBinding plugin and the ephemeral-volume controller are
registered by the core family, next to the scheduler and the pods they serve (docs/storage.md).

Cluster add-on ``default-storage-class``: a new cluster starts with kind's default class ``standard``
(WaitForFirstConsumer, ``kbatch.io/simulated``), once; :mod:`kbatch.families.storage.default_class`.
"""

from __future__ import annotations

from kbatch.api.core_v1.persistent_volume import PersistentVolume
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.storage_v1 import CSIDriver, StorageClass
from kbatch.api.strategies.storage import CSIDriverStrategy, PersistentVolumeStrategy, StorageClassStrategy
from kbatch.api.strategies.storage.csi_driver import (
    MUTABLE_ALLOCATABLE_COUNT,
    SE_LINUX_MOUNT,
    TOKEN_SECRETS,
    VOLUME_LIMIT_SCALING,
)
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import (
    AdmissionPlugin,
    ClusterAddon,
    ControllerSpec,
    Family,
    KindEntry,
    kcm_account,
)
from kbatch.families.storage import printers
from kbatch.families.storage.default_class import ADDON_NAME

__all__ = ["STORAGE"]

_GATES = "kubernetes/website content/en/docs/reference/command-line-tools-reference/feature-gates/"

STORAGE = Family(
    name="storage",
    description="storage.k8s.io/v1 StorageClass and CSIDriver, core/v1 PersistentVolume; "
                "DefaultStorageClass and StorageObjectInUseProtection admission; pvc/pv protection; "
                "the PV binder and the kbatch.io/simulated provisioner; the default class `standard` "
                "of a new cluster",
    kinds=(
        KindEntry(StorageClass, StorageClassStrategy(), printers.STORAGE_CLASS),
        KindEntry(PersistentVolume, PersistentVolumeStrategy(), printers.PERSISTENT_VOLUME),
        # kubectl has no CSIDriver describer: its generic page (pkg/describe/describe.go describerMap)
        KindEntry(CSIDriver, CSIDriverStrategy(), printers.CSI_DRIVER, page=generic_page),
    ),
    feature_gates=(  # the CSIDriver fields behind them (kbatch/api/strategies/storage/csi_driver.py)
        FeatureSpec(SE_LINUX_MOUNT, True, Stage.GA, locked=True,
                    source=_GATES + "SELinuxMountReadWriteOncePod.md"),
        FeatureSpec(MUTABLE_ALLOCATABLE_COUNT, True, Stage.BETA,
                    source=_GATES + "MutableCSINodeAllocatableCount.md"),
        FeatureSpec(TOKEN_SECRETS, True, Stage.BETA, source=_GATES + "CSIServiceAccountTokenSecrets.md"),
        # beta in 1.37 (kubernetes/api ad2999828 "Move VolumeLimitScaling to beta"; the website's page
        # still says alpha since 1.35), on as beta gates are
        FeatureSpec(VOLUME_LIMIT_SCALING, True, Stage.BETA, source="kubernetes/api storage/v1/types.go"),
    ),
    admission=(
        AdmissionPlugin("DefaultStorageClass",
                        "kbatch.apiserver.admission_plugins.default_storage_class:install",
                        description="a claim without a class gets the default StorageClass"),
        AdmissionPlugin("StorageObjectInUseProtection",
                        "kbatch.apiserver.admission_plugins.storage_protection:install",
                        description="claims and volumes get the pvc-/pv-protection finalizers"),
    ),
    controllers=(
        ControllerSpec("pvc-protection", "removes kubernetes.io/pvc-protection from deleted claims no "
                       "scheduled pod uses", "kbatch.controllers.storage.protection:setup_pvc",
                       aliases=("persistentvolumeclaim-protection-controller",),
                       source="persistentvolumeclaim-protection-controller",
                       user=kcm_account("pvc-protection-controller")),
        ControllerSpec("pv-protection", "removes kubernetes.io/pv-protection from deleted volumes that "
                       "are not Bound", "kbatch.controllers.storage.protection:setup_pv",
                       aliases=("persistentvolume-protection-controller",),
                       source="persistentvolume-protection-controller",
                       user=kcm_account("pv-protection-controller")),
        ControllerSpec("persistentvolume-binder", "binds claims to volumes, asks provisioners for new ones, "
                       "releases and reclaims volumes", "kbatch.controllers.storage.binder:setup",
                       aliases=("persistentvolume-binder-controller",),
                       source="persistentvolume-controller", user=kcm_account("persistent-volume-binder")),
        ControllerSpec("simulated-provisioner", "kbatch.io/simulated: provisions a volume for each claim "
                       "asked of it and deletes it once released",
                       "kbatch.controllers.storage.provisioner:setup",
                       source="kbatch.io/simulated"),
    ),
    cluster_addons=(
        ClusterAddon(ADDON_NAME, "kbatch.families.storage.default_class:install_default_class",
                     description='the default StorageClass "standard" (WaitForFirstConsumer, '
                                 'kbatch.io/simulated), as kind installs'),
    ),
)
