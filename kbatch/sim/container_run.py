"""What one run of a simulated container does (:class:`ContainerRun`), and the ``sleep`` operand
grammar every part of the vocabulary shares; re-exported by :mod:`kbatch.sim.command`."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["DEFAULT_DURATION", "ContainerRun", "parse_sleep"]

DEFAULT_DURATION = 1.0
"""Seconds an unrecognised command runs (kubernetes-sigs/kwok ``kustomize/stage/pod/general``
``pod-complete`` defaults its delay to 1000 ms)."""

_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_SLEEP = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$")


@dataclass(frozen=True, slots=True)
class ContainerRun:
    """What one run of a container does: how long it runs, how it ends, what it prints, and when
    (``log_offsets``: seconds after the start at which each line of ``logs`` is printed).
    ``warning``: what the simulation could not follow in this run (the kubelet records it as a
    ``Warning`` event on the pod); empty when it followed everything. ``events``: (type, reason,
    message, offset) the kubelet records about the container ``offset`` seconds after the run
    starts (a failed postStart hook, when it fails). ``hold``: seconds the kubelet's start of the
    container takes after the runtime started it (its postStart hook; after a failed one, until the
    kill is done): the status shows it only then, and the next container starts only then."""

    duration: float
    exit_code: int
    logs: tuple[str, ...] = ()
    log_offsets: tuple[float, ...] = ()
    warning: str = ""
    events: tuple[tuple[str, str, str, float], ...] = ()
    hold: float = 0.0


def parse_sleep(word: str) -> float | None:
    """``"90"`` → 90.0, ``"1.5m"`` → 90.0, ``"infinity"`` → inf; None when not a sleep operand."""
    if word == "infinity":
        return math.inf
    match = _SLEEP.match(word)
    if match is None:
        return None
    return float(match.group(1)) * _SLEEP_UNITS[match.group(2)]
