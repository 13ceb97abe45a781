"""Fluent builders for the objects tests need most (kueue's ``MakeJob(...).Obj()`` wrappers).

Each builder edits a plain manifest and ``.obj()`` validates it into the model, so a builder can
never produce an object the API would not decode::

    make_job("train").indexed(4).parallelism(2).command("sleep 5").obj()
    make_pod("p", "ns").node("n1").phase("Running").obj()
    make_node("n1").capacity(cpu="8", memory="32Gi").taint("gpu", "true", "NoSchedule").obj()
"""

from __future__ import annotations

import copy
import shlex
from typing import Any, Self

__all__ = ["JobBuilder", "NodeBuilder", "PodBuilder", "make_job", "make_node", "make_pod"]


class _Builder:
    api_version = ""
    kind = ""

    def __init__(self, name: str, namespace: str | None) -> None:
        meta: dict[str, Any] = {"name": name}
        if namespace is not None:
            meta["namespace"] = namespace
        self._m: dict[str, Any] = {"apiVersion": self.api_version, "kind": self.kind, "metadata": meta}

    def label(self, key: str, value: str) -> Self:
        self._m["metadata"].setdefault("labels", {})[key] = value
        return self

    def annotation(self, key: str, value: str) -> Self:
        self._m["metadata"].setdefault("annotations", {})[key] = value
        return self

    def finalizer(self, name: str) -> Self:
        self._m["metadata"].setdefault("finalizers", []).append(name)
        return self

    def owner(self, owner: Any, *, controller: bool = True, block_owner_deletion: bool = True) -> Self:
        """Add an ownerReference to ``owner`` (a model that has a uid, i.e. was created)."""
        ref = {"apiVersion": owner.api_version, "kind": owner.kind, "name": owner.metadata.name,
               "uid": owner.metadata.uid, "controller": controller,
               "blockOwnerDeletion": block_owner_deletion}
        self._m["metadata"].setdefault("ownerReferences", []).append(ref)
        return self

    def dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._m)

    def _model(self) -> Any:
        raise NotImplementedError

    def obj(self) -> Any:
        return self._model().model_validate(self.dict())


def _container(command: str | list[str] | None, image: str = "busybox") -> dict[str, Any]:
    c: dict[str, Any] = {"name": "main", "image": image}
    if command is not None:
        c["command"] = shlex.split(command) if isinstance(command, str) else list(command)
    return c


class _PodSpecMixin:
    _m: dict[str, Any]

    def _pod_spec(self) -> dict[str, Any]:
        raise NotImplementedError

    def command(self, command: str | list[str]) -> Self:
        """Container command: ``"sleep 5"``, ``"exit 1"``, ``["sh", "-c", "sleep 5; exit 2"]``."""
        self._pod_spec()["containers"][0]["command"] = (
            shlex.split(command) if isinstance(command, str) else list(command))
        return self  # type: ignore[return-value]

    def image(self, image: str) -> Self:
        self._pod_spec()["containers"][0]["image"] = image
        return self  # type: ignore[return-value]

    def requests(self, **resources: str) -> Self:
        """``.requests(cpu="1", memory="1Gi")``."""
        res = self._pod_spec()["containers"][0].setdefault("resources", {})
        res.setdefault("requests", {}).update({k.replace("_", "-"): str(v) for k, v in resources.items()})
        return self  # type: ignore[return-value]

    def node_selector(self, **labels: str) -> Self:
        self._pod_spec().setdefault("nodeSelector", {}).update(labels)
        return self  # type: ignore[return-value]

    def toleration(self, key: str, value: str | None = None, effect: str | None = None,
                   operator: str = "Equal") -> Self:
        tol = {"key": key, "operator": operator if value is not None else "Exists", "value": value,
               "effect": effect}
        self._pod_spec().setdefault("tolerations", []).append({k: v for k, v in tol.items() if v})
        return self  # type: ignore[return-value]

    def restart_policy(self, policy: str) -> Self:
        self._pod_spec()["restartPolicy"] = policy
        return self  # type: ignore[return-value]


class JobBuilder(_PodSpecMixin, _Builder):
    api_version, kind = "batch/v1", "Job"

    def __init__(self, name: str, namespace: str = "default") -> None:
        super().__init__(name, namespace)
        self._m["spec"] = {"template": {"spec": {"restartPolicy": "Never",
                                                 "containers": [_container("sleep 1")]}}}

    def _model(self) -> Any:
        from kbatch.api.batch_v1 import Job

        return Job

    def _pod_spec(self) -> dict[str, Any]:
        return self._m["spec"]["template"]["spec"]

    def _set(self, field: str, value: Any) -> JobBuilder:
        self._m["spec"][field] = value
        return self

    def parallelism(self, n: int) -> JobBuilder:
        return self._set("parallelism", n)

    def completions(self, n: int | None) -> JobBuilder:
        return self._set("completions", n)

    def indexed(self, completions: int) -> JobBuilder:
        self._set("completionMode", "Indexed")
        return self._set("completions", completions)

    def backoff_limit(self, n: int) -> JobBuilder:
        return self._set("backoffLimit", n)

    def backoff_limit_per_index(self, n: int) -> JobBuilder:
        return self._set("backoffLimitPerIndex", n)

    def max_failed_indexes(self, n: int) -> JobBuilder:
        return self._set("maxFailedIndexes", n)

    def active_deadline(self, seconds: int) -> JobBuilder:
        return self._set("activeDeadlineSeconds", seconds)

    def ttl_after_finished(self, seconds: int) -> JobBuilder:
        return self._set("ttlSecondsAfterFinished", seconds)

    def suspend(self, value: bool = True) -> JobBuilder:
        return self._set("suspend", value)

    def pod_replacement_policy(self, policy: str) -> JobBuilder:
        return self._set("podReplacementPolicy", policy)

    def pod_failure_policy(self, *rules: dict[str, Any]) -> JobBuilder:
        return self._set("podFailurePolicy", {"rules": list(rules)})

    def success_policy(self, *rules: dict[str, Any]) -> JobBuilder:
        return self._set("successPolicy", {"rules": list(rules)})

    def managed_by(self, name: str) -> JobBuilder:
        return self._set("managedBy", name)

    def manual_selector(self, **labels: str) -> JobBuilder:
        """``spec.manualSelector: true`` with ``selector.matchLabels`` = pod template labels = ``labels``."""
        labels = labels or {"job": self._m["metadata"]["name"]}
        self._m["spec"]["template"].setdefault("metadata", {}).setdefault("labels", {}).update(labels)
        self._set("manualSelector", True)
        return self._set("selector", {"matchLabels": dict(labels)})

    def queue(self, name: str) -> JobBuilder:
        """Kueue's ``kueue.x-k8s.io/queue-name`` label."""
        return self.label("kueue.x-k8s.io/queue-name", name)

    def status(self, **fields: Any) -> JobBuilder:
        """Raw status fields (camelCase), e.g. for tests that drive a Job's status by hand."""
        self._m.setdefault("status", {}).update(fields)
        return self


class PodBuilder(_PodSpecMixin, _Builder):
    api_version, kind = "v1", "Pod"

    def __init__(self, name: str, namespace: str = "default") -> None:
        super().__init__(name, namespace)
        self._m["spec"] = {"restartPolicy": "Never", "containers": [_container("sleep 1")]}

    def _model(self) -> Any:
        from kbatch.api.core_v1 import Pod

        return Pod

    def _pod_spec(self) -> dict[str, Any]:
        return self._m["spec"]

    def node(self, name: str) -> PodBuilder:
        self._m["spec"]["nodeName"] = name
        return self

    def phase(self, phase: str) -> PodBuilder:
        self._m.setdefault("status", {})["phase"] = phase
        return self

    def condition(self, type_: str, status: str = "True", reason: str | None = None) -> PodBuilder:
        cond = {"type": type_, "status": status, **({"reason": reason} if reason else {})}
        self._m.setdefault("status", {}).setdefault("conditions", []).append(cond)
        return self


class NodeBuilder(_Builder):
    api_version, kind = "v1", "Node"

    def __init__(self, name: str) -> None:
        super().__init__(name, None)
        self._m["spec"] = {}
        self._m["status"] = {"capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                             "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                             "conditions": [{"type": "Ready", "status": "True"}]}

    def _model(self) -> Any:
        from kbatch.api.core_v1 import Node

        return Node

    def capacity(self, **resources: str) -> NodeBuilder:
        """Sets capacity and allocatable (``cpu="8", memory="32Gi", nvidia_com_gpu="4"``)."""
        res = {k.replace("_", "-") if k in ("cpu", "memory", "pods", "ephemeral_storage")
               else k.replace("_com_", ".com/"): str(v) for k, v in resources.items()}
        self._m["status"]["capacity"].update(res)
        self._m["status"]["allocatable"].update(res)
        return self

    def taint(self, key: str, value: str | None = None, effect: str = "NoSchedule") -> NodeBuilder:
        taint = {"key": key, "effect": effect, **({"value": value} if value is not None else {})}
        self._m["spec"].setdefault("taints", []).append(taint)
        return self

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        self._m["spec"]["unschedulable"] = value
        return self

    def ready(self, value: bool = True) -> NodeBuilder:
        self._m["status"]["conditions"] = [{"type": "Ready", "status": "True" if value else "False"}]
        return self


def make_job(name: str, namespace: str = "default") -> JobBuilder:
    return JobBuilder(name, namespace)


def make_pod(name: str, namespace: str = "default") -> PodBuilder:
    return PodBuilder(name, namespace)


def make_node(name: str) -> NodeBuilder:
    return NodeBuilder(name)
