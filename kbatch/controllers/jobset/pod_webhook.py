"""The JobSet pod webhooks as admission plugins (``pkg/webhooks/pod_webhook.go``, v0.12.0), for pods
labelled ``jobset.sigs.k8s.io/jobset-name`` (the webhooks' ``objectSelector``), on CREATE:

``mpod.kb.io`` (mutating), for a pod annotated with its JobSet's name and not using the
node-selector strategy (``alpha.jobset.sigs.k8s.io/node-selector``):

* label ``jobset.sigs.k8s.io/priority=<spec.priority>`` when the pod has a priority (set by the
  ``Priority`` plugin, which kube-apiserver runs before webhooks), so exclusive placement only
  competes within a priority level;
* exclusive placement (``alpha.jobset.sigs.k8s.io/exclusive-topology: <node label key>``): the
  leader pod (completion index 0) gets a required pod affinity to its own ``job-key`` and a required
  anti-affinity to pods of another ``job-key`` at the same priority, both on that topology key, with
  ``namespaceSelector: {}`` (every namespace): one Job per topology domain. A follower pod gets a
  node selector for the domain of its scheduled leader (the leader's node's label).

``vpod.kb.io`` (validating): a follower of an exclusive-placement Job is refused (``403``) until its
leader is scheduled (``leader pod not yet scheduled, not creating follower pod. this is an expected,
transient error``); the Job controller retries the create with its back-off.

The leader is found by name, ``<jobset>-<rj>-<jobIndex>-0-<suffix>`` with the exclusive annotation,
not being deleted, owned by the same Job. Upstream reads it from an index of its informer cache;
kbatch lists the namespace's pods with the JobSet's labels from the API server's store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kbatch.api import jobset_constants as c
from kbatch.api.batch_constants import JOB_COMPLETION_INDEX_ANNOTATION
from kbatch.api.core_v1 import (
    Affinity,
    Node,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
)
from kbatch.api.errors import NotFound
from kbatch.api.meta import LabelSelector, LabelSelectorRequirement
from kbatch.apiserver.admission import AdmissionRequest
from kbatch.controllers.jobset.names import pod_name, strip_pod_suffix
from kbatch.controllers.jobset.webhook import denied, forbidden

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["MUTATING_POD", "VALIDATING_POD", "PodWebhook", "exclusive_affinity", "install_mutating",
           "install_validating"]

MUTATING_POD = "mpod.kb.io"
VALIDATING_POD = "vpod.kb.io"


class _Refused(Exception):
    """A webhook error (upstream returns it to controller-runtime, which denies with its text)."""


def is_leader(pod: Pod) -> bool:
    return (pod.metadata.annotations or {}).get(JOB_COMPLETION_INDEX_ANNOTATION) == "0"


def _term(selector: list[LabelSelectorRequirement], topology_key: str) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector=LabelSelector(match_expressions=selector),
                           topology_key=topology_key, namespace_selector=LabelSelector())


def exclusive_affinity(pod: Pod) -> None:
    """``setExclusiveAffinities``, in place on the admitted pod."""
    labels, topology = pod.metadata.labels or {}, (pod.metadata.annotations or {})[c.EXCLUSIVE_KEY]
    key = labels.get(c.JOB_KEY, "")
    affinity = pod.spec.affinity or Affinity()
    together = affinity.pod_affinity or PodAffinity()
    apart = affinity.pod_anti_affinity or PodAntiAffinity()
    together.required_during_scheduling_ignored_during_execution = [
        *(together.required_during_scheduling_ignored_during_execution or ()),
        _term([LabelSelectorRequirement(key=c.JOB_KEY, operator="In", values=[key])], topology)]
    apart.required_during_scheduling_ignored_during_execution = [
        *(apart.required_during_scheduling_ignored_during_execution or ()),
        _term([LabelSelectorRequirement(key=c.JOB_KEY, operator="Exists"),
               LabelSelectorRequirement(key=c.JOB_KEY, operator="NotIn", values=[key]),
               LabelSelectorRequirement(key=c.PRIORITY_KEY, operator="In",
                                        values=[labels.get(c.PRIORITY_KEY, "")])], topology)]
    affinity.pod_affinity, affinity.pod_anti_affinity = together, apart
    pod.spec.affinity = affinity


def _selected(pod: Any) -> bool:
    """The webhooks' objectSelector and their first checks: a JobSet pod, not using the node-selector
    strategy."""
    if not isinstance(pod, Pod) or c.JOBSET_NAME_KEY not in (pod.metadata.labels or {}):
        return False
    annotations = pod.metadata.annotations or {}
    return c.JOBSET_NAME_KEY in annotations and c.NODE_SELECTOR_STRATEGY_KEY not in annotations


class PodWebhook:
    """Both pod webhooks over one API server (leader pods and nodes are read from it)."""

    def __init__(self, server: APIServer) -> None:
        self.server = server

    def _leader(self, pod: Pod) -> Pod:
        """``leaderPodForFollower``."""
        labels = pod.metadata.labels or {}
        for key in (c.JOBSET_NAME_KEY, c.REPLICATED_JOB_NAME_KEY, c.JOB_INDEX_KEY):
            if key not in labels:
                raise _Refused(f"pod missing label: {key}")
        wanted = pod_name(labels[c.JOBSET_NAME_KEY], labels[c.REPLICATED_JOB_NAME_KEY],
                          labels[c.JOB_INDEX_KEY], "0")
        selector = ",".join(f"{k}={labels[k]}" for k in (c.JOBSET_NAME_KEY, c.REPLICATED_JOB_NAME_KEY,
                                                          c.JOB_INDEX_KEY))
        candidates = self.server.list(Pod, pod.metadata.namespace, label_selector=selector).items
        leaders = [p for p in candidates if strip_pod_suffix(p.name) == wanted
                   and c.EXCLUSIVE_KEY in (p.metadata.annotations or {})
                   and p.metadata.deletion_timestamp is None]
        if len(leaders) != 1:
            raise _Refused(f"expected 1 leader pod ({wanted}), but got {len(leaders)}. this is an expected, "
                           "transient error")
        leader = leaders[0]
        mine, theirs = pod.metadata.controller_ref(), leader.metadata.controller_ref()
        if mine is None:
            raise _Refused("follower pod has no owner reference")
        if theirs is None:
            raise _Refused(f'leader pod "{leader.name}" has no owner reference')
        if mine.uid != theirs.uid:
            raise _Refused(f"follower pod owner UID ({mine.uid}) != leader pod owner UID ({theirs.uid})")
        return leader

    def _topology(self, leader: Pod, key: str) -> str:
        try:
            node = self.server.get(Node, leader.spec.node_name or "")
        except NotFound as err:
            # an error with an API status is answered with that status (controller-runtime v0.24.0
            # defaulter_custom.go), passed on with the webhook's prefix: 404, not a 403 denial
            raise denied(MUTATING_POD, err) from None
        value = (node.metadata.labels or {}).get(key)
        if value is None:
            raise _Refused(f"node does not have topology label: {key}")
        return value

    def _follow_leader(self, pod: Pod) -> None:
        """``setNodeSelector``: a follower goes to its scheduled leader's domain; without a leader (or
        an unscheduled one) it is left as it is, for ``vpod.kb.io`` to refuse."""
        try:
            leader = self._leader(pod)
        except _Refused:
            return
        if not leader.spec.node_name:
            return
        key = (pod.metadata.annotations or {})[c.EXCLUSIVE_KEY]
        pod.spec.node_selector = {**(pod.spec.node_selector or {}), key: self._topology(leader, key)}

    def mutate(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or not _selected(pod):
            return
        assert isinstance(pod, Pod)
        if pod.spec.priority is not None:
            pod.metadata.labels = {**(pod.metadata.labels or {}), c.PRIORITY_KEY: str(pod.spec.priority)}
        if c.EXCLUSIVE_KEY not in (pod.metadata.annotations or {}):
            return
        try:
            if is_leader(pod):
                exclusive_affinity(pod)
            else:
                self._follow_leader(pod)
        except _Refused as err:
            raise forbidden(MUTATING_POD, str(err)) from None

    def _check(self, pod: Pod) -> None:
        """``ValidateCreate`` of a selected pod."""
        key = (pod.metadata.annotations or {}).get(c.EXCLUSIVE_KEY)
        if key is None or is_leader(pod):
            return
        if pod.spec.node_selector is None:
            raise _Refused("follower pod node selector not set")
        if key not in pod.spec.node_selector:
            raise _Refused("follower pod node selector for topology domain not found. missing selector: "
                           f"{key}")
        if not self._leader(pod).spec.node_name:
            raise _Refused("leader pod not yet scheduled, not creating follower pod. this is an expected, "
                           "transient error")

    def validate(self, request: AdmissionRequest) -> None:
        pod = request.obj
        if request.operation != "CREATE" or not _selected(pod):
            return
        assert isinstance(pod, Pod)
        try:
            self._check(pod)
        except _Refused as err:
            raise forbidden(VALIDATING_POD, str(err)) from None


def install_mutating(server: APIServer) -> None:
    server.admission.add_mutating(Pod, PodWebhook(server).mutate, main_resource_only=True)


def install_validating(server: APIServer) -> None:
    server.admission.add_validating(Pod, PodWebhook(server).validate, main_resource_only=True)
