"""Warnings for containers whose command the simulation does not run as written.

kbatch's kubelet reads each container's command by the vocabulary of :mod:`kbatch.sim.command`; a
program outside it (``perl``, ``md5sum FILE``, a ``{ … }`` group) runs the default
duration and exits 0, so a Job that upstream would fail, or whose logs upstream would show, succeeds
here quietly. ``kbatch serve`` and the ``kbatch`` CLI say so when such an object is created: one
``Warning`` per container, naming its field path as kube-apiserver's pod warnings do
(``spec.template.spec.containers[0]: …``); kubectl prints each as ``Warning: …``. A deliberate
kbatch addition (docs/simulation.md, "Where behaviour comes from"). A container without a command
runs its image's (:mod:`kbatch.sim.images`); one whose image is not in the table is a guess too,
and is warned as one. The warning says what kbatch does instead, by KWOK's rule: the default
duration in a pod a Job owns (a Job's, a CronJob's or a JobSet's template, or a Pod whose
``ownerReferences`` name a Job), until the pod is deleted in any other.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kbatch.sim.command import unmodelled_command
from kbatch.sim.images import image_argv, owned_by_job

__all__ = ["unmodelled_warnings"]

_SHOWN = 60  # characters of the command quoted in the warning


def unmodelled_warnings(obj: Mapping[str, Any]) -> list[str]:
    """One warning per container of ``obj``'s pod specs (wherever they sit) whose command the
    simulation does not model."""
    out = []
    guess = _JOB_GUESS if _job_owned(obj) else _KWOK_GUESS
    for path, spec in _pod_specs(obj, ""):
        for key in ("initContainers", "containers"):
            for i, container in enumerate(spec.get(key) or ()):
                if not isinstance(container, Mapping):
                    continue
                what = _unmodelled(container)
                if what is not None:
                    out.append(f"{path}{key}[{i}]: kbatch does not {what}; the simulated container {guess} "
                               "(docs/simulation.md)")
    return out


_JOB_GUESS = "runs the default duration (1s) and exits 0"  # KWOK completes a Job's pods
_KWOK_GUESS = "runs until its pod is deleted, as KWOK keeps a pod no Job owns Running"
_JOB_KINDS = frozenset({"Job", "CronJob", "JobSet"})


def _unmodelled(container: Mapping[str, Any]) -> str | None:
    """What kbatch does not know about this container, as the warning words it, or None."""
    image = str(container.get("image") or "")
    argv = image_argv(image, tuple(str(w) for w in container.get("command") or ()),
                      tuple(str(w) for w in container.get("args") or ()))
    if not argv:  # an image without a name is refused by validation: nothing to guess
        return f'know what image "{_shorten(image)}" runs' if image else None
    found = unmodelled_command(argv)
    return None if found is None else f'run "{_shorten(found)}"'


def _job_owned(obj: Mapping[str, Any]) -> bool:
    """Will the pods of ``obj``'s templates be owned by a Job (KWOK's ``pod-complete`` selector)?"""
    if obj.get("kind") in _JOB_KINDS:
        return True
    refs = (obj.get("metadata") or {}).get("ownerReferences") or ()
    return owned_by_job(str(ref.get("kind")) for ref in refs if isinstance(ref, Mapping))


def _pod_specs(node: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(node, Mapping):
        if isinstance(node.get("containers"), list):
            yield path, node
            return
        for key in sorted(node, key=str):
            if key not in ("status", "metadata"):
                yield from _pod_specs(node[key], f"{path}{key}.")
    elif isinstance(node, list):
        base = path[:-1]
        for i, item in enumerate(node):
            yield from _pod_specs(item, f"{base}[{i}].")


def _shorten(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= _SHOWN else line[: _SHOWN - 1] + "…"
