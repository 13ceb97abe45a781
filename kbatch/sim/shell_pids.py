"""Process IDs in a simulated script: ``$$``, ``$!`` and the forks that number them.

A container's command runs as PID 1 of the pod's own PID namespace (Kubernetes gives each
container one unless ``shareProcessNamespace`` is set, when the pause container is PID 1: not
modelled), so ``$$`` is ``1``, in a subshell too (POSIX "Shell Command Language" 2.5.2: ``$$`` is
the invoked shell's). Linux numbers the processes the shell forks in order from 2, and ``$!`` (2.5.2:
the last asynchronous list's process ID) is the number its last background job got. The shells fork
(as dash and bash do, checked with ``unshare -pf``): a subshell ``( )``, a command substitution, each
stage of a pipeline, a background list, and each external command (``sleep``, ``cat``, ``grep``, a
command the vocabulary does not know; not a builtin nor a function); the last command of a
subshell that is an external one is ``exec``-ed in it without a fork of its own (so ``(sleep 1)``
and ``sleep 1 &`` are one process each). :class:`Pids` is the namespace's counter, shared by a
shell and its subshells.

PIDs are left out of the loop detection (:meth:`kbatch.sim.shell_run.Shell.fingerprint`): a loop
whose iterations differ only in the PID of their background job (``while :; do sleep 1 & wait;
done``) still runs unchanged until the container is killed.
"""

from __future__ import annotations

from dataclasses import dataclass

from kbatch.sim.shell_text import FILTERS

__all__ = ["BACKGROUND_KEY", "EXTERNAL", "SHELL_PID", "Pids", "program"]

SHELL_PID = 1
BACKGROUND_KEY = "=!"
"""Where ``$!`` is kept among the variables (a subshell's copy of them has it too)."""
EXTERNAL = FILTERS | {"sleep", "cat", "ls", "touch", "mkdir", "rm", "tee", "yes", "printenv", "env"}
"""The commands of the vocabulary that are programs, not builtins: each runs in a process of its
own. (A command the vocabulary does not know is one as well.)"""

SYSTEM_BIN = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})
"""Where an image keeps those programs (busybox's applets in ``/bin``, coreutils in ``/usr/bin``)."""


def program(name: str) -> str:
    """The vocabulary's name for a command: a program of :data:`EXTERNAL` named by its path in a
    system directory (``/bin/sleep``, as Kueue's admission fair sharing examples run it) is that
    program, since the shell executes the same file (XCU 2.9.1.1: a name with a slash is executed
    as given); any other name is itself."""
    directory, _, base = name.rpartition("/")
    return base if directory in SYSTEM_BIN and base in EXTERNAL else name


@dataclass(slots=True)
class Pids:
    """The PID namespace's counter: the last PID given."""

    last: int = SHELL_PID

    def fork(self) -> int:
        self.last += 1
        return self.last

    def exec_last(self, pid: int | None) -> None:
        """A subshell whose last command was the external one forked as ``pid`` (None: it was no
        external command): that command was ``exec``-ed in the subshell, so it took no PID,
        unless one was given since."""
        if pid is not None and pid == self.last:
            self.last -= 1
