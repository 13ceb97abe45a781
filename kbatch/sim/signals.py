"""Stop signals: their names and numbers, what a process does with one by default, and the order
the kubelet sends one in.

When a container is stopped (its pod deleted, preempted, evicted, past ``activeDeadlineSeconds``, a
liveness or startup probe failed) the kubelet runs ``preStop``, then asks the runtime to stop the
container with the grace period left: the runtime sends the container's stop signal to its main
process and SIGKILL when the grace period ends (kubernetes/kubernetes
``pkg/kubelet/kuberuntime/kuberuntime_container.go`` ``killContainer``; containerd/CRI-O send the
image's ``STOPSIGNAL``, SIGTERM when it has none; KEP-4960 ``lifecycle.stopSignal`` overrides it
behind the ContainerStopSignals gate, alpha since 1.33 and off by default).

What the process does with it (signal(7), and the kernel's rule for a PID namespace's init,
pid_namespaces(7)): a signal it handles runs its handler; one it does not, with the default action
"terminate", ends it with status ``128 + n`` (SIGTERM: 143) — except for PID 1 of the container's
PID namespace, to which the kernel delivers only signals it has a handler for, so an unhandled
SIGTERM is dropped and the process runs until SIGKILL (137). A container's main process is PID 1
unless the pod shares its process namespace (``shareProcessNamespace: true``: the pause container
is PID 1 then). SIGKILL cannot be handled or dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CONTAINER_STOP_SIGNALS", "DEFAULT_STOP_SIGNAL", "KILLED", "SIGNALS", "StopSignal",
           "default_kills", "killed_status", "signal_name"]

SIGNALS: dict[str, int] = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8, "KILL": 9,
    "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15, "STKFLT": 16, "CHLD": 17,
    "CONT": 18, "STOP": 19, "TSTP": 20, "TTIN": 21, "TTOU": 22, "URG": 23, "XCPU": 24, "XFSZ": 25,
    "VTALRM": 26, "PROF": 27, "WINCH": 28, "IO": 29, "PWR": 30, "SYS": 31,
}
"""Linux x86-64/arm64 signal numbers (signal(7)), by name without ``SIG``."""
_BY_NUMBER = {number: name for name, number in SIGNALS.items()}
_IGNORED_BY_DEFAULT = frozenset({"CHLD", "URG", "WINCH", "CONT"})  # default action "Ign" (or Cont)
_STOPS_BY_DEFAULT = frozenset({"STOP", "TSTP", "TTIN", "TTOU"})
DEFAULT_STOP_SIGNAL = "TERM"
CONTAINER_STOP_SIGNALS = "ContainerStopSignals"  # the feature gate of ``lifecycle.stopSignal``
KILLED = 128 + SIGNALS["KILL"]  # 137: the status the runtime reports for a SIGKILLed process


def signal_name(word: str) -> str | None:
    """``SIGTERM``, ``TERM``, ``term`` or ``15`` → ``TERM``; ``EXIT`` and ``0`` → ``EXIT`` (the
    shell's exit condition, POSIX ``trap``); None for anything else."""
    upper = word.upper()
    if upper in ("EXIT", "0"):
        return "EXIT"
    if upper.isdigit():
        return _BY_NUMBER.get(int(upper))
    upper = upper.removeprefix("SIG")
    return upper if upper in SIGNALS else None


def killed_status(name: str) -> int:
    """The exit code a runtime reports for a process a signal ended (``128 + n``)."""
    return 128 + SIGNALS[name]


def default_kills(name: str) -> bool:
    """Does the signal's default action end a process (signal(7): Term or Core)?"""
    return name in SIGNALS and name not in _IGNORED_BY_DEFAULT and name not in _STOPS_BY_DEFAULT


@dataclass(frozen=True, slots=True)
class StopSignal:
    """A stop signal sent to a running container: which, ``at`` seconds after the container
    started, and whether its main process is PID 1 of its PID namespace."""

    name: str
    at: float
    pid1: bool = True

    def unhandled_ends(self) -> bool:
        """Does the signal end a process that has no handler for it?"""
        return self.name == "KILL" or (not self.pid1 and default_kills(self.name))
