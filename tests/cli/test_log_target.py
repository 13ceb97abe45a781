"""``kbatch logs``' choice of pod and container (kbatch/cli/log_target.py) against kubectl's rules:
``podutils.ByLogging`` (k8s.io/kubectl ``pkg/util/podutils/podutils.go``) and the container
defaulting of ``pkg/polymorphichelpers/logsforobject.go``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.cli.log_target import by_logging_key, choose_container, choose_pod


def pod(name: str, node: str = "n", phase: str = "Running", ready: str | None = "2025-01-01T00:00:05Z",
        restarts: int = 0, created: str = "2025-01-01T00:00:00Z") -> dict[str, Any]:
    conditions = [] if ready is None else [{"type": "Ready", "status": "True", "lastTransitionTime": ready}]
    return {"metadata": {"name": name, "creationTimestamp": created},
            "spec": {"nodeName": node, "containers": [{"name": "c"}]},
            "status": {"phase": phase, "conditions": conditions,
                       "containerStatuses": [{"name": "c", "restartCount": restarts}]}}


# each rule of ByLogging.Less, the preferred pod first
RULES = {
    "1. assigned < unassigned": (pod("a"), pod("b", node="")),
    "2. Running < Unknown": (pod("a", ready=None), pod("b", phase="Unknown", ready=None)),
    "2. Unknown < Pending": (pod("a", phase="Unknown", ready=None), pod("b", phase="Pending", ready=None)),
    "2. Succeeded ranks as Running (not in the phase map)": (
        pod("a", phase="Succeeded", ready=None), pod("b", phase="Unknown", ready=None)),
    "3. ready < not ready": (pod("a"), pod("b", ready=None)),
    "4. ready longer < ready later": (pod("b", ready="2025-01-01T00:00:01Z"), pod("a")),
    "5. more restarts < fewer": (pod("b", restarts=2), pod("a")),
    "6. older < newer": (pod("b", created="2024-12-31T00:00:00Z"), pod("a")),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_each_by_logging_rule(rule: str) -> None:
    best, other = RULES[rule]
    assert by_logging_key(best) < by_logging_key(other)
    assert choose_pod([other, best]) == (best, f"Found 2 pods, using pod/{best['metadata']['name']}")


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["Running", "Pending", "Unknown", "Succeeded"]),
                          st.integers(0, 3), st.integers(0, 9)), min_size=1, max_size=6), st.randoms())
def test_the_choice_does_not_depend_on_the_list_order(specs: list[tuple[bool, str, int, int]],
                                                      rnd: Any) -> None:
    """Every pod differs in its creation time, so ByLogging is a strict order and the chosen pod is its
    minimum whatever order the list comes in; one pod means no notice."""
    pods = [pod(f"p{i}", node="n" if assigned else "", phase=phase, restarts=restarts,
                ready=None if phase != "Running" else f"2025-01-01T00:00:0{ready}Z",
                created=f"2024-12-{10 + i:02d}T00:00:00Z")
            for i, (assigned, phase, restarts, ready) in enumerate(specs)]
    shuffled = list(pods)
    rnd.shuffle(shuffled)
    best, notice = choose_pod(shuffled)
    assert best is min(pods, key=by_logging_key)
    assert (notice is None) == (len(pods) == 1)


def test_containers_default_as_kubectl() -> None:
    one = pod("p")
    assert choose_container(one, None) == ("c", None)
    many = {"metadata": {"name": "p", "annotations": {}},
            "spec": {"containers": [{"name": "a"}, {"name": "b"}], "initContainers": [{"name": "i"}]}}
    assert choose_container(many, None) == ("a", 'Defaulted container "a" out of: a, b, i (init)')
    assert choose_container(many, "i") == ("i", None)
    many["metadata"]["annotations"] = {"kubectl.kubernetes.io/default-container": "b"}
    assert choose_container(many, None) == ("b", None)
    many["metadata"]["annotations"] = {"kubectl.kubernetes.io/default-container": "zz"}
    assert choose_container(many, None) == ("a", 'Default container name "zz" not found in pod p\n'
                                                 'Defaulted container "a" out of: a, b, i (init)')
    with pytest.raises(ValueError, match=r"^container zz is not valid for pod p$"):
        choose_container(many, "zz")
