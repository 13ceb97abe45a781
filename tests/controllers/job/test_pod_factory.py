"""``PodFactory``: a Job's pods copied from its first one are the very models validating
``build_pod``'s wire form gives (values, which fields are set, dict order), and share nothing."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.batch_constants import (
    JOB_COMPLETION_INDEX_ANNOTATION,
    JOB_COMPLETION_INDEX_ENV,
    JOB_COMPLETION_INDEX_LABEL,
)
from kbatch.api.core_v1 import Pod
from kbatch.controllers.job.actions import PodCreate
from kbatch.controllers.job.pod_factory import PodFactory
from kbatch.controllers.job.pod_template import add_index_env
from kbatch.controllers.job.views import JobInfo

_keys = st.sampled_from(["app", "team", "example.com/x", JOB_COMPLETION_INDEX_LABEL,
                         JOB_COMPLETION_INDEX_ANNOTATION])
_maps = st.one_of(st.none(), st.dictionaries(_keys, st.sampled_from(["a", "b", "7"]), max_size=3))
_vars = [{"name": "A", "value": "1"}, {"name": JOB_COMPLETION_INDEX_ENV, "value": "x"}]
_env = st.lists(st.sampled_from(_vars), max_size=2, unique_by=lambda e: e["name"])


@st.composite
def templates(draw: st.DrawFn) -> dict:
    meta = {k: v for k, v in (("labels", draw(_maps)), ("annotations", draw(_maps))) if v is not None}
    containers = [{"name": f"c{i}", "image": "busybox", "env": draw(_env)}
                  for i in range(draw(st.integers(1, 2)))]
    spec: dict = {"restartPolicy": "Never", "containers": containers}
    if draw(st.booleans()):
        spec["hostname"] = "preset"
    if draw(st.booleans()):
        spec["initContainers"] = [{"name": "init", "image": "busybox"}]
    return {"metadata": meta, "spec": spec} if meta or draw(st.booleans()) else {"spec": spec}


def _same(a: Pod, b: Pod) -> None:
    assert a.to_json() == b.to_json()
    assert a.model_dump(exclude_unset=True) == b.model_dump(exclude_unset=True)


@settings(max_examples=60, deadline=None)
@given(templates(), st.sampled_from(["w", "a" * 60]), st.booleans(),
       st.lists(st.integers(0, 10**6), min_size=1, max_size=5))
def test_copied_pods_equal_validated_pods(template: dict, name: str, indexed: bool,
                                          indexes: list[int]) -> None:
    job = JobInfo(name=name, namespace="ns", uid="uid-1", template=template, indexed=indexed)
    tpl = add_index_env(template) if indexed else template
    factory = PodFactory()
    made = []
    for ix in indexes:
        create = PodCreate(ix if indexed else None, job, tpl)
        pod = factory.pod(create)
        _same(pod, Pod.model_validate(create.pod))
        made.append(pod)
    # nothing shared: changing one pod changes no other pod (nor the next one made)
    made[0].metadata.labels = {**(made[0].metadata.labels or {}), "changed": "yes"}
    made[0].spec.containers[0].env = None
    later = factory.pod(PodCreate(indexes[-1] if indexed else None, job, tpl))
    _same(later, Pod.model_validate(PodCreate(indexes[-1] if indexed else None, job, tpl).pod))
    for pod in made[1:]:
        assert "changed" not in (pod.metadata.labels or {})


def test_failure_counts_and_a_new_template_take_the_general_path() -> None:
    tpl = add_index_env({"spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    job = JobInfo(name="w", namespace="ns", uid="u", template=tpl, indexed=True, backoff_limit_per_index=1)
    factory = PodFactory()
    counted = PodCreate(3, job, tpl, (2, 1))
    _same(factory.pod(counted), Pod.model_validate(counted.pod))
    other = add_index_env({"metadata": {"labels": {"v": "2"}},
                           "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    factory.pod(PodCreate(0, job, tpl))
    pod = factory.pod(PodCreate(1, job, other))
    assert pod.metadata.labels is not None and pod.metadata.labels["v"] == "2"
