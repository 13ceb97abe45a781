"""Warnings for containers whose command the simulation does not run as written.

kbatch's kubelet reads each container's command by the vocabulary of :mod:`kbatch.sim.command`; a
program outside it (``perl``, ``python3 -c …``, ``rev FILE``, a ``{ … }`` group) runs the default
duration and exits 0, so a Job that upstream would fail, or whose logs upstream would show, succeeds
here quietly. ``kbatch serve`` and the ``kbatch`` CLI say so when such an object is created: one
``Warning`` per container, naming its field path as kube-apiserver's pod warnings do
(``spec.template.spec.containers[0]: …``); kubectl prints each as ``Warning: …``. A deliberate
kbatch addition (docs/simulation.md, "Where behaviour comes from"); a container without a command
(the image's own) gets none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from kbatch.sim.command import unmodelled_command

__all__ = ["unmodelled_warnings"]

_SHOWN = 60  # characters of the command quoted in the warning


def unmodelled_warnings(obj: Mapping[str, Any]) -> list[str]:
    """One warning per container of ``obj``'s pod specs (wherever they sit) whose command the
    simulation does not model."""
    out = []
    for path, spec in _pod_specs(obj, ""):
        for key in ("initContainers", "containers"):
            for i, container in enumerate(spec.get(key) or ()):
                if not isinstance(container, Mapping):
                    continue
                argv = [str(w) for w in (*(container.get("command") or ()), *(container.get("args") or ()))]
                found = unmodelled_command(argv)
                if found is not None:
                    out.append(f'{path}{key}[{i}]: kbatch does not run "{_shorten(found)}"; the simulated '
                               "container runs the default duration (1s) and exits 0 (docs/simulation.md)")
    return out


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
