"""The JobSet family: jobset.x-k8s.io/v1alpha2 JobSet as kubernetes-sigs/jobset v0.12.0 runs it.

* the kind, with the CRD's strategy (structural defaults, schema and CEL rules), its printer columns
  and kubectl's generic describe page;
* the webhooks as admission plugins named like upstream's webhook configurations: ``mjobset.kb.io``,
  ``vjobset.kb.io`` (JobSets) and ``mpod.kb.io``, ``vpod.kb.io`` (the JobSets' pods: priority label,
  exclusive placement), after core's built-in plugins, as kube-apiserver runs webhooks;
* the ``jobset`` controller (with the ``jobset-pod`` exclusive-placement checker), its Events from
  ``jobset``, as upstream's manager records them;
* the JobSet controller's feature gates at their v0.12.0 stage and default (``pkg/features``):
  ``InPlaceRestart``, ``RestartJob``, ``ElasticJobSet``, alpha and off;
* JobSet as a Kueue job integration (``jobset.x-k8s.io/jobset``).

JobSets act only on objects that opt in, so the controller runs by default. docs/jobset.md has the
details and every deliberate difference.
"""

from __future__ import annotations

from kbatch.api import jobset_constants as c
from kbatch.api.features import FeatureSpec, Stage
from kbatch.api.jobset_v1alpha2 import JobSet
from kbatch.api.strategies.jobset import JobSetStrategy
from kbatch.families.core.generic_page import generic_page
from kbatch.families.family import (
    AdmissionPlugin,
    ControllerSpec,
    EventsApi,
    Family,
    JobIntegration,
    KindEntry,
)
from kbatch.families.jobset import printers

__all__ = ["JOBSET"]


# main.go: mgr.GetEventRecorder("jobset"), controller-runtime v0.24's events.k8s.io/v1 recorder (RBAC
# events.k8s.io in config/components/rbac/role.yaml); the manager's hostname is its pod's, which
# upstream suffixes with a ReplicaSet hash and a random string: kbatch uses the Deployment's name.
# Every event has the action Reconciling (pkg/controllers/jobset_controller.go, volume_claim_policy.go)
JOBSET_EVENTS = EventsApi("jobset-controller-manager", "jobset-controller-manager", every="Reconciling")

_FEATURES = "kubernetes-sigs/jobset v0.12.0 pkg/features/features.go"
_HOOKS = "kbatch.controllers.jobset."

JOBSET = Family(
    name="jobset",
    description="jobset.x-k8s.io/v1alpha2 JobSet: groups of Jobs run as one workload "
                "(kubernetes-sigs/jobset)",
    kinds=(KindEntry(JobSet, JobSetStrategy(), printers.JOBSET, page=generic_page),),
    admission=(
        AdmissionPlugin("mjobset.kb.io", _HOOKS + "webhook:install_mutating",
                        description="JobSet webhook defaults (policies, Indexed, DNS hostnames)"),
        AdmissionPlugin("mpod.kb.io", _HOOKS + "pod_webhook:install_mutating",
                        description="JobSet pods: priority label, exclusive-placement affinities"),
        AdmissionPlugin("vjobset.kb.io", _HOOKS + "webhook:install_validating",
                        description="JobSet webhook validation and update rules"),
        AdmissionPlugin("vpod.kb.io", _HOOKS + "pod_webhook:install_validating",
                        description="JobSet pods: followers wait for their leader (exclusive placement)"),
    ),
    controllers=(
        ControllerSpec("jobset", "runs JobSets: child Jobs, headless Service, policies, restarts",
                       "kbatch.controllers.jobset:setup", aliases=("jobset-controller",), source="jobset",
                       # config/default: namespace jobset-system, namePrefix jobset-, SA controller-manager
                       user="system:serviceaccount:jobset-system:jobset-controller-manager",
                       events=JOBSET_EVENTS),
    ),
    feature_gates=(
        FeatureSpec(c.GATE_IN_PLACE_RESTART, False, Stage.ALPHA, source=_FEATURES),
        FeatureSpec(c.GATE_RESTART_JOB, False, Stage.ALPHA, source=_FEATURES),
        FeatureSpec(c.GATE_ELASTIC_JOBSET, False, Stage.ALPHA, source=_FEATURES),
    ),
    job_integrations=(
        JobIntegration("jobset.x-k8s.io/jobset", JobSet,
                       "kbatch.families.jobset.integration:JobSetIntegration"),
    ),
)
