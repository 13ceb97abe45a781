"""``lifecycle.stopSignal`` against the pod's operating system (KEP-4960, ContainerStopSignals).

The field reaches validation only while the gate is on, or on an update of a pod that already had
it (:func:`kbatch.api.gates.drop_disabled_pod_fields` drops it otherwise). Then upstream's
``validateLifecycle`` requires ``spec.os.name`` and a signal of that OS's list: every value of the
API's ``Signal`` enum on linux (``k8s.io/api`` ``core/v1/types.go``), ``SIGKILL`` and ``SIGTERM``
on windows (the KEP's "Cross validation with Pod spec.os.name"). kbatch keeps the KEP's rules; the
messages are those of ``pkg/apis/core/validation`` as of 1.33 (the stored copy of that file
predates the field: not checked against it).
"""

from __future__ import annotations

from kbatch.api.core_v1 import PodSpec
from kbatch.api.errors import FieldError
from kbatch.api.validation import child, index

__all__ = ["LINUX_STOP_SIGNALS", "WINDOWS_STOP_SIGNALS", "stop_signal_errors"]

LINUX_STOP_SIGNALS = frozenset({
    "SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL",
    "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT",
    "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
    "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU", "SIGXFSZ", "SIGRTMIN",
    *(f"SIGRTMIN+{n}" for n in range(1, 16)), *(f"SIGRTMAX-{n}" for n in range(1, 15)), "SIGRTMAX",
})
WINDOWS_STOP_SIGNALS = frozenset({"SIGKILL", "SIGTERM"})
_NO_OS = "may not be set for containers with empty `spec.os.name`"


def stop_signal_errors(spec: PodSpec, path: str) -> list[FieldError]:
    """Each container's (and sidecar's) ``lifecycle.stopSignal`` for the pod's ``spec.os.name``."""
    os_name = spec.os.name if spec.os is not None else None
    errs: list[FieldError] = []
    for field, containers in (("containers", spec.containers), ("initContainers", spec.init_containers)):
        for i, c in enumerate(containers or ()):
            signal = c.lifecycle.stop_signal if c.lifecycle is not None else None
            if signal is None:
                continue
            at = child(child(index(child(path, field), i), "lifecycle"), "stopSignal")
            if not os_name:
                errs.append(FieldError.forbidden(at, _NO_OS))
            elif os_name in ("linux", "windows"):
                allowed = LINUX_STOP_SIGNALS if os_name == "linux" else WINDOWS_STOP_SIGNALS
                if signal not in allowed:
                    errs.append(FieldError.not_supported(at, signal, sorted(allowed)))
    return errs
