"""The ``coscheduling`` conformance family: the scheduler-plugins PodGroup
(``scheduling.x-k8s.io/v1alpha1``) with the Coscheduling plugin in the default scheduler profile and
the PodGroup controller: the quorum, all-or-nothing placement with a Permit wait, and the phase
machine with real pods.

Checks skip on a target that does not serve the kind (no scheduler-plugins CRD); the pod checks need a
scheduler with the Coscheduling plugin and a kubelet (``runs_pods``). The kind is named
``PodGroup.scheduling.x-k8s.io``: a bare ``PodGroup`` is Kubernetes' own.
"""

from __future__ import annotations

KIND = "PodGroup.scheduling.x-k8s.io"
