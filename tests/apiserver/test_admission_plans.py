"""The admission seam's per-(kind, main/subresource) hook plans run exactly the hooks the plain
"every registered hook whose kind matches, in order" rule runs, skipping ``main_resource_only``
hooks on subresource writes, and hooks added later are seen."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Node, Pod
from kbatch.apiserver import APIServer
from kbatch.apiserver.admission import Admission, AdmissionRequest
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

_MODELS = (None, Pod, Node)
# (mutating?, model index, main_resource_only)
_HOOKS = st.lists(st.tuples(st.booleans(), st.integers(0, 2), st.booleans()), max_size=8)
_REQUESTS = st.lists(st.tuples(st.sampled_from([Pod, Node]), st.sampled_from(["", "status"])), max_size=6)


@given(_HOOKS, _HOOKS, _REQUESTS)
def test_plans_run_the_matching_hooks_in_order(first: list[tuple[bool, int, bool]],
                                                later: list[tuple[bool, int, bool]],
                                                requests: list[tuple[type, str]]) -> None:
    admission = Admission()
    registered: list[tuple[bool, type | None, bool, int]] = []
    seen: list[int] = []

    def add(hooks: list[tuple[bool, int, bool]]) -> None:
        for mutating, model_index, main_only in hooks:
            number = len(registered)
            model = _MODELS[model_index]
            registered.append((mutating, model, main_only, number))
            adder = admission.add_mutating if mutating else admission.add_validating
            adder(model, lambda _req, n=number: seen.append(n), main_resource_only=main_only)

    def check() -> None:
        for model, sub in requests:
            request = AdmissionRequest("UPDATE", model(), None, sub)
            for mutating in (True, False):
                seen.clear()
                (admission.mutate if mutating else admission.validate)(request)
                assert seen == [n for m, target, main_only, n in registered
                                if m == mutating and (target is None or target is model)
                                and not (main_only and sub)]

    add(first)
    check()
    add(later)  # after plans were built
    check()


def test_builtin_pod_plugins_skip_status_writes() -> None:
    server = APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                       rng=random.Random(1))
    pod = Pod.model_validate({"metadata": {"name": "p"},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}})
    main, status = server.admission._plan(True, Pod, False), server.admission._plan(True, Pod, True)
    # LimitRanger, ServiceAccount, DefaultTolerationSeconds, Priority, RuntimeClass,
    # MutatingAdmissionPolicy, JobSet's and Kueue's mpod.kb.io
    assert len(main) >= 8
    assert len(status) == len(main) - 8
    server.admission.mutate(AdmissionRequest("UPDATE", pod, pod, "status"))  # runs, changes no spec
    assert pod.spec.tolerations is None and pod.spec.priority is None


def test_metadata_only_writes_are_those_whose_hooks_all_say_so() -> None:
    admission = Admission()
    assert admission.mutates_only_metadata(Pod, True)

    class Labeler:
        admission_metadata_only = True

        def __call__(self, request: AdmissionRequest) -> None:
            request.obj.metadata.labels = {"seen": "yes"}

    admission.add_mutating(None, Labeler())
    assert admission.mutates_only_metadata(Pod, True)
    admission.add_mutating(Pod, lambda request: None, main_resource_only=True)
    assert admission.mutates_only_metadata(Pod, True) and not admission.mutates_only_metadata(Pod, False)
    admission.add_mutating(Node, lambda request: None)
    assert admission.mutates_only_metadata(Pod, True) and not admission.mutates_only_metadata(Node, True)
