"""Built-in admission plugins that kube-apiserver enables by default, installed through the admission
seam (:class:`kbatch.apiserver.admission.Admission`) by :func:`install_defaults`.

* ``DefaultTolerationSeconds`` (:mod:`.default_toleration_seconds`): pods tolerate the not-ready and
  unreachable ``NoExecute`` taints for 300 s unless they already say otherwise;
* ``Priority`` (:mod:`.priority`): ``spec.priorityClassName`` → ``spec.priority`` and
  ``spec.preemptionPolicy``; one global default PriorityClass at most.

They run in upstream's order (DefaultTolerationSeconds before Priority), before any hook added later
(such hooks play the part of upstream's webhooks, which run after the built-ins).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import NotFound
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.apiserver.admission_plugins.default_toleration_seconds import DefaultTolerationSeconds
from kbatch.apiserver.admission_plugins.priority import PriorityAdmission

if TYPE_CHECKING:
    from kbatch.apiserver.server import APIServer

__all__ = ["DEFAULT_PLUGINS", "DefaultTolerationSeconds", "PriorityAdmission", "install_defaults"]

DEFAULT_PLUGINS = ("DefaultTolerationSeconds", "Priority")


def _registered(server: APIServer, model: type) -> bool:
    try:
        server.registry.for_model(model)
    except NotFound:
        return False
    return True


def install_defaults(server: APIServer, plugins: tuple[str, ...] = DEFAULT_PLUGINS) -> None:
    """Add the named plugins' hooks to ``server.admission`` (only when ``Pod`` is a registered kind)."""
    unknown = set(plugins) - set(DEFAULT_PLUGINS)
    if unknown:
        raise ValueError(f"unknown admission plugins: {sorted(unknown)}")
    if not _registered(server, Pod):
        return
    # both plugins leave subresource writes alone (their hooks check too)
    if "DefaultTolerationSeconds" in plugins:
        server.admission.add_mutating(Pod, DefaultTolerationSeconds(), main_resource_only=True)
    if "Priority" in plugins:
        priority = PriorityAdmission(server, has_classes=_registered(server, PriorityClass))
        server.admission.add_mutating(Pod, priority.admit_pod, main_resource_only=True)
        if priority.has_classes:
            server.admission.add_validating(PriorityClass, priority.validate_class, main_resource_only=True)
