"""The kubelet's four node conditions when healthy (upstream ``pkg/kubelet/nodestatus/setters.go``).

Node templates are created with them (:mod:`.nodes`, as KWOK's node-initialize stage does) and the
simulated kubelet posts them (:mod:`kbatch.controllers.kubelet.nodestatus`). The table lives here,
in the simulation's vocabulary, because ``sim`` sits below ``controllers`` (tests/test_boundaries.py).
"""

from __future__ import annotations

__all__ = ["HEALTHY", "View"]

View = tuple[str, str, str, str]  # (type, status, reason, message)

HEALTHY: dict[str, View] = {v[0]: v for v in (  # pkg/kubelet/nodestatus/setters.go
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)}
