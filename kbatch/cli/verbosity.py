"""How much of the in-process control plane's logs a command prints: kubectl's ``-v``/``--v``.

A local command runs the controllers, the scheduler and Kueue's manager in its own process; their
logs (a reconcile that failed and is retried with back-off, an event that could not be recorded)
are the logs of kube-controller-manager, kube-scheduler and Kueue's manager upstream, which a kubectl
user never sees on their terminal: what they see of a failing controller are its events
(``kbatch events``, ``describe``). So a command prints none of them by default, and ``-v N`` (klog's
flag, which kubectl takes as ``-v, --v Level``) turns them on: 1 and up the warnings and errors,
2 and up the informational lines, 5 and up debug lines (a failed reconcile's traceback with it).
``kbatch serve`` is the control plane's own process, so its logs are printed as a component prints
them, whatever ``-v`` says.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["CONTROL_PLANE_LOGGER", "log_level", "set_verbosity"]

CONTROL_PLANE_LOGGER = "kbatch"
_QUIET = logging.CRITICAL + 1


def log_level(verbosity: int, *, component: bool = False) -> int:
    """The ``logging`` level ``-v verbosity`` shows; ``component``: the command is the control plane
    process itself (``serve``), whose warnings show at ``-v 0`` too."""
    if verbosity >= 5:
        return logging.DEBUG
    if verbosity >= 2:
        return logging.INFO
    if verbosity >= 1 or component:
        return logging.WARNING
    return _QUIET


def set_verbosity(verbosity: int, *, component: bool = False) -> None:
    """Route the control plane's loggers to stderr at the level ``-v`` asks for (the edge: the one
    place the CLI touches ``logging``)."""
    logger = logging.getLogger(CONTROL_PLANE_LOGGER)
    logger.setLevel(log_level(verbosity, component=component))
    if not any(isinstance(h, _Stderr) for h in logger.handlers):
        logger.addHandler(_Stderr())


class _Stderr(logging.Handler):
    """The message alone, on whatever ``sys.stderr`` is when the line is logged (as Python's
    last-resort handler printed these lines before)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # logging must not break the command
            self.handleError(record)
