"""The default admission plugins: DefaultTolerationSeconds and Priority, with upstream's messages."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Forbidden
from kbatch.api.frozen import edit
from kbatch.api.scheduling_v1 import PriorityClass
from kbatch.apiserver import APIServer
from kbatch.families import AdmissionSelectionError, builtin, builtin_registry
from kbatch.store import MemoryStore
from tests.apiserver.conftest import FakeClock

NOT_READY = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
             "tolerationSeconds": 300}
UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
               "tolerationSeconds": 300}


@pytest.fixture
def api(clock: FakeClock) -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(11))


def _pod(name: str = "p", **spec: Any) -> Pod:
    return Pod.model_validate({"metadata": {"name": name, "namespace": "default"},
                               "spec": {"containers": [{"name": "c", "image": "busybox"}], **spec}})


def _tolerations(pod: Pod) -> list[dict[str, Any]]:
    return [t.to_dict() for t in pod.spec.tolerations or ()]


def _class(api: APIServer, name: str, value: int, **extra: Any) -> PriorityClass:
    return api.create(PriorityClass.model_validate({"metadata": {"name": name}, "value": value, **extra}))


# --- DefaultTolerationSeconds -----------------------------------------------------------------------

def test_pod_gets_both_default_tolerations(api: APIServer) -> None:
    created = api.create(_pod(tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]))
    assert _tolerations(created) == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
                                     NOT_READY, UNREACHABLE]
    assert api.get(Pod, "p", "default") == created


@pytest.mark.parametrize(("existing", "added"), [
    ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
      "tolerationSeconds": 10}, [UNREACHABLE]),
    ({"key": "node.kubernetes.io/unreachable", "operator": "Exists"}, [NOT_READY]),  # any effect
    ({"operator": "Exists", "effect": "NoExecute"}, []),  # empty key: every taint
    ({"operator": "Exists"}, []),
    ({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoSchedule"},
     [NOT_READY, UNREACHABLE]),  # another effect does not count
])
def test_existing_tolerations_are_respected(api: APIServer, existing: dict[str, Any],
                                            added: list[dict[str, Any]]) -> None:
    created = api.create(_pod(tolerations=[existing]))
    assert _tolerations(created) == [existing, *added]


def test_status_writes_do_not_add_tolerations_and_updates_keep_them(api: APIServer) -> None:
    created = edit(api.create(_pod()))
    created.metadata.labels = {"x": "y"}
    updated = api.update(created)
    assert _tolerations(updated) == [NOT_READY, UNREACHABLE]
    api.patch(Pod, "p", {"status": {"phase": "Running"}}, "default", status=True)
    assert _tolerations(api.get(Pod, "p", "default")) == [NOT_READY, UNREACHABLE]


def test_plugins_can_be_left_out(clock: FakeClock) -> None:
    bare = APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(1),
                     admission_plugins=())
    created = bare.create(_pod())
    assert created.spec.tolerations is None and created.spec.priority is None
    only_priority = builtin().admission_plugins(disable="DefaultTolerationSeconds")
    some = APIServer(MemoryStore(), builtin_registry(), now=clock.now, rng=random.Random(1),
                     admission_plugins=only_priority)
    created = some.create(_pod())
    assert created.spec.tolerations is None and created.spec.priority == 0
    with pytest.raises(AdmissionSelectionError, match='enable-admission-plugins plugin "AlwaysPullImages" is '
                                                      'unknown'):
        builtin().admission_plugins(enable="AlwaysPullImages")


# --- Priority ----------------------------------------------------------------------------------------

def test_no_class_gives_priority_zero_and_preempt_lower(api: APIServer) -> None:
    created = api.create(_pod())
    assert (created.spec.priority, created.spec.preemption_policy, created.spec.priority_class_name) == \
        (0, "PreemptLowerPriority", None)


def test_named_class_resolves_value_and_policy(api: APIServer) -> None:
    _class(api, "high", 1000, preemptionPolicy="Never")
    created = api.create(_pod(priorityClassName="high"))
    assert (created.spec.priority, created.spec.preemption_policy) == (1000, "Never")


def test_global_default_applies_and_names_the_class(api: APIServer) -> None:
    _class(api, "batch-default", 50, globalDefault=True)
    created = api.create(_pod())
    assert (created.spec.priority_class_name, created.spec.priority) == ("batch-default", 50)


def test_builtin_system_classes(api: APIServer) -> None:
    node = api.create(_pod("a", priorityClassName="system-node-critical"))
    cluster = api.create(_pod("b", priorityClassName="system-cluster-critical"))
    assert (node.spec.priority, cluster.spec.priority) == (2000001000, 2000000000)
    assert node.spec.preemption_policy == "PreemptLowerPriority"


def test_unknown_class_is_forbidden_and_nothing_is_stored(api: APIServer) -> None:
    with pytest.raises(Forbidden) as err:
        api.create(_pod(priorityClassName="nope"))
    assert err.value.message == 'pods "p" is forbidden: no PriorityClass with name nope was found'
    assert api.list(Pod).items == []
    gen = _pod("", priorityClassName="nope")
    gen.metadata.generate_name = "w-"
    with pytest.raises(Forbidden, match=r'^pods "w-" is forbidden'):
        api.create(gen)


def test_stated_priority_must_match_the_class(api: APIServer) -> None:
    _class(api, "high", 1000, preemptionPolicy="Never")
    with pytest.raises(Forbidden) as err:
        api.create(_pod(priority=5))
    assert err.value.message == ('pods "p" is forbidden: the integer value of priority (5) must not be '
                                 'provided in pod spec; priority admission controller computed 0 from the '
                                 'given PriorityClass name')
    with pytest.raises(Forbidden) as err:
        api.create(_pod(priorityClassName="high", preemptionPolicy="PreemptLowerPriority"))
    assert err.value.message == ('pods "p" is forbidden: the string value of PreemptionPolicy '
                                 '(PreemptLowerPriority) must not be provided in pod spec; priority '
                                 'admission controller computed Never from the given PriorityClass name')
    assert api.create(_pod(priorityClassName="high", priority=1000)).spec.priority == 1000


def test_update_without_priority_keeps_it(api: APIServer) -> None:
    _class(api, "high", 1000)
    created = edit(api.create(_pod(priorityClassName="high")))
    created.spec.priority = None
    created.spec.preemption_policy = None
    created.metadata.labels = {"x": "y"}
    updated = api.update(created)
    assert (updated.spec.priority, updated.spec.preemption_policy) == (1000, "PreemptLowerPriority")


def test_only_one_global_default(api: APIServer) -> None:
    _class(api, "a", 10, globalDefault=True)
    with pytest.raises(Forbidden) as err:
        _class(api, "b", 20, globalDefault=True)
    assert err.value.message == ('priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is '
                                 'already marked as default. Only one default can exist')
    other = edit(_class(api, "c", 30))
    other.global_default = True
    with pytest.raises(Forbidden, match="PriorityClass a is already marked as default"):
        api.update(other)
    same = edit(api.get(PriorityClass, "a"))
    same.description = "still the default"
    assert api.update(same).global_default is True


# --- the plugin's cached list of PriorityClasses ------------------------------------------------------

def test_class_changes_are_seen_by_the_next_pod(api: APIServer) -> None:
    """The list is cached between pods, and every kind of change to a class invalidates it."""
    assert api.create(_pod("a")).spec.priority == 0  # the list is read (empty) and cached
    _class(api, "d", 7, globalDefault=True)
    assert api.create(_pod("b")).spec.priority == 7
    changed = edit(api.get(PriorityClass, "d"))
    changed.global_default = False
    api.update(changed)
    assert api.create(_pod("c")).spec.priority == 0
    _class(api, "e", 9, globalDefault=True)
    api.delete(PriorityClass, "e")
    assert api.create(_pod("d")).spec.priority == 0
    with pytest.raises(Forbidden, match="no PriorityClass with name e was found"):
        api.create(_pod("e", priorityClassName="e"))


def test_a_class_written_behind_the_servers_back_is_seen(api: APIServer) -> None:
    api.create(_pod("a"))
    key = api.kind(PriorityClass).keys.key(None, "raw")
    api.store.put(key, b'{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass",'
                       b'"metadata":{"name":"raw","uid":"u1"},"value":42,"globalDefault":true}')
    assert api.create(_pod("b")).spec.priority == 42


def test_the_cache_survives_compaction_and_restore(api: APIServer, tmp_path: Any) -> None:
    api.create(_pod("a"))
    path = str(tmp_path / "snap")
    api.store.snapshot(path)  # no classes yet
    _class(api, "d", 7, globalDefault=True)
    api.store.compact(api.store.revision)
    assert api.create(_pod("b")).spec.priority == 7
    api.store.restore(path)  # cancels the plugin's watcher: the next pod reads the restored store
    assert api.create(_pod("c")).spec.priority == 0
    _class(api, "f", 3, globalDefault=True)
    assert api.create(_pod("d")).spec.priority == 3
