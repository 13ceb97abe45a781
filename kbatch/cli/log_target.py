"""Which pod and container ``kbatch logs`` reads, as kubectl chooses them (pure functions).

``logs job/NAME``: the Job's pods by its selector, sorted by ``podutils.ByLogging`` — assigned
before unassigned, Running (and Succeeded/Failed, which the phase map does not name) before
Unknown before Pending, ready before not ready, ready longer before ready later, more restarts
before fewer, older before newer — the first taken, with ``Found N pods, using pod/P`` on stderr
when there are several (k8s.io/kubectl ``pkg/polymorphichelpers/logsforobject.go``,
``pkg/util/podutils/podutils.go``). Ties keep the list order (names), where Go's unstable
``sort.Sort`` may pick either.

Without ``-c``: the container the ``kubectl.kubernetes.io/default-container`` annotation names, else
the first, with ``Defaulted container "a" out of: a, b, init (init)`` when the pod has more than one
(``logsforobject.go``, names as ``podcmd.AllContainerNames``; an annotation naming no container is
``Default container name "x" not found in pod p`` first). An unknown ``-c`` is refused
before asking the server, as kubectl 1.32 words it (``container zz is not valid for pod p``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["by_logging_key", "choose_container", "choose_pod"]

Obj = dict[str, Any]
DEFAULT_CONTAINER = "kubectl.kubernetes.io/default-container"
_PHASE_RANK = {"Running": 0, "Unknown": 1, "Pending": 2}  # others: 0, a Go map's zero value


def _ready_since(pod: Obj) -> str | None:
    for cond in (pod.get("status") or {}).get("conditions") or ():
        if cond.get("type") == "Ready" and cond.get("status") == "True":
            return str(cond.get("lastTransitionTime") or "")
    return None


def by_logging_key(pod: Obj) -> tuple[Any, ...]:
    """``ByLogging.Less`` as a sort key (RFC 3339 times in UTC compare as text; a zero time last)."""
    status = pod.get("status") or {}
    ready = _ready_since(pod)
    restarts = max((c.get("restartCount") or 0 for c in status.get("containerStatuses") or ()), default=0)
    created = (pod.get("metadata") or {}).get("creationTimestamp") or ""
    return (not (pod.get("spec") or {}).get("nodeName"),
            _PHASE_RANK.get(status.get("phase") or "", 0),
            ready is None,
            (ready == "", ready or ""),
            -restarts,
            (created == "", created))


def choose_pod(pods: list[Obj]) -> tuple[Obj, str | None]:
    """The pod to read and kubectl's stderr notice (``None`` for a single pod)."""
    best = min(pods, key=by_logging_key)
    notice = f"Found {len(pods)} pods, using pod/{best['metadata']['name']}" if len(pods) > 1 else None
    return best, notice


def _names(pod: Obj) -> list[str]:
    spec = pod.get("spec") or {}
    return ([c["name"] for c in spec.get("containers") or ()]
            + [f"{c['name']} (ephem)" for c in spec.get("ephemeralContainers") or ()]
            + [f"{c['name']} (init)" for c in spec.get("initContainers") or ()])


def choose_container(pod: Obj, name: str | None) -> tuple[str, str | None]:
    """The container to read and kubectl's stderr notice; ``ValueError`` for an unknown name."""
    spec = pod.get("spec") or {}
    every = [c["name"] for key in ("containers", "initContainers", "ephemeralContainers")
             for c in spec.get(key) or ()]
    pod_name = (pod.get("metadata") or {}).get("name", "")
    if name:
        if name not in every:
            raise ValueError(f"container {name} is not valid for pod {pod_name}")
        return name, None
    notices = []
    preset = ((pod.get("metadata") or {}).get("annotations") or {}).get(DEFAULT_CONTAINER)
    if preset and preset in every:
        return preset, None
    if preset:
        notices.append(f'Default container name "{preset}" not found in pod {pod_name}')
    first = spec["containers"][0]["name"]
    if len(every) > 1:
        notices.append(f'Defaulted container "{first}" out of: {", ".join(_names(pod))}')
    return first, "\n".join(notices) or None
