"""Built-in admission plugins kube-apiserver enables by default; each module has an
``install(server)`` that its family declares (:class:`kbatch.families.AdmissionPlugin`):

* ``DefaultTolerationSeconds`` (:mod:`.default_toleration_seconds`): pods tolerate the not-ready and
  unreachable ``NoExecute`` taints for 300 s unless they already say otherwise;
* ``Priority`` (:mod:`.priority`): ``spec.priorityClassName`` → ``spec.priority`` and
  ``spec.preemptionPolicy``; one global default PriorityClass at most.
"""

from __future__ import annotations

from kbatch.apiserver.admission_plugins.default_toleration_seconds import DefaultTolerationSeconds
from kbatch.apiserver.admission_plugins.priority import PriorityAdmission

__all__ = ["DefaultTolerationSeconds", "PriorityAdmission"]
