"""matchLabelKeys / mismatchLabelKeys are merged into the selectors when a Pod is created (upstream
``pkg/registry/core/pod/strategy.go`` PrepareForCreate, KEP-3633 and KEP-3243) and validated as
``ValidateMatchLabelKeysAndMismatchLabelKeys``; an update leaves them as stored."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.errors import Invalid
from kbatch.api.frozen import edit
from kbatch.api.meta import LabelSelector
from kbatch.api.selectors import selector_from_model
from kbatch.api.strategies.core.pod_label_keys import merged_selector
from kbatch.apiserver import APIServer
from kbatch.controllers.scheduler.convert import _spread_constraint
from kbatch.families import builtin_registry
from kbatch.store import MemoryStore

TERM = "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"


def _server() -> APIServer:
    return APIServer(MemoryStore(), builtin_registry(), now=lambda: datetime(2026, 1, 1, tzinfo=UTC),
                     rng=random.Random(3))


def _pod(labels: dict[str, str], term: dict[str, Any] | None = None,
         spread: dict[str, Any] | None = None) -> Pod:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "i"}]}
    if term is not None:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "kubernetes.io/hostname", **term}]}}
    if spread is not None:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone",
                                              "whenUnsatisfiable": "DoNotSchedule", **spread}]
    return Pod.model_validate({"metadata": {"name": "p", "labels": labels}, "spec": spec})


def _invalid(p: Pod) -> list[tuple[str, str]]:
    with pytest.raises(Invalid) as err:
        _server().create(p)
    return [(c["field"], c["message"]) for c in err.value.status.to_dict()["details"]["causes"]]


def test_create_merges_keys_the_pod_carries_into_the_stored_selectors() -> None:
    server = _server()
    term = {"labelSelector": {"matchLabels": {"app": "a"}}, "matchLabelKeys": ["rev", "absent"],
            "mismatchLabelKeys": ["tenant"]}
    spread = {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]},
              "matchLabelKeys": ["rev"]}
    created = server.create(_pod({"app": "a", "rev": "r1", "tenant": "t"}, term, spread))
    stored = server.get(Pod, "p", "default").to_dict()["spec"]
    anti = stored["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["labelSelector"] == {"matchLabels": {"app": "a"}, "matchExpressions": [
        {"key": "rev", "operator": "In", "values": ["r1"]},
        {"key": "tenant", "operator": "NotIn", "values": ["t"]}]}
    assert anti["matchLabelKeys"] == ["rev", "absent"]  # the fields stay as authored
    assert stored["topologySpreadConstraints"][0]["labelSelector"]["matchExpressions"] == [
        {"key": "app", "operator": "Exists"}, {"key": "rev", "operator": "In", "values": ["r1"]}]
    # an update keeps what was merged (no second merge, even with changed labels)
    created = edit(created)
    created.metadata.labels = {"app": "a", "rev": "r2", "tenant": "t"}
    updated = server.update(created)
    assert updated.to_dict()["spec"] == stored
    # the scheduler does not add the merged requirement a second time
    converted = _spread_constraint(updated.spec.topology_spread_constraints[0], {"rev": "r1"})
    assert converted.selector is not None
    assert [r.key for r in converted.selector.match_expressions] == ["app", "rev"]


def test_a_nil_selector_is_left_alone_and_the_keys_are_forbidden() -> None:
    assert _invalid(_pod({"rev": "r"}, {"matchLabelKeys": ["rev"], "mismatchLabelKeys": ["x"]})) == [
        (f"{TERM}.matchLabelKeys", "Forbidden: must not be specified when labelSelector is not set"),
        (f"{TERM}.mismatchLabelKeys", "Forbidden: must not be specified when labelSelector is not set")]
    causes = _invalid(_pod({}, spread={"matchLabelKeys": ["rev"]}))
    assert causes == [("spec.topologySpreadConstraints[0].matchLabelKeys",
                       "Forbidden: must not be specified when labelSelector is not set")]


def test_key_in_both_lists_in_the_selector_or_not_a_label_name_is_invalid() -> None:
    sel = {"matchLabels": {"rev": "x"}}
    causes = _invalid(_pod({"rev": "r"}, {"labelSelector": sel, "matchLabelKeys": ["rev", "bad key"],
                                          "mismatchLabelKeys": ["rev"]}))
    fields = [f for f, _ in causes]
    assert f"{TERM}.matchLabelKeys[1]" in fields  # not a qualified name
    assert (f"{TERM}.matchLabelKeys[0]", 'Invalid value: "rev": exists in both matchLabelKeys and '
            "labelSelector") in causes
    assert (f"{TERM}.matchLabelKeys[0]", 'Invalid value: "rev": exists in both matchLabelKeys and '
            "mismatchLabelKeys") in causes
    # the same key in a topology spread selector and matchLabelKeys, once merged
    spread = {"labelSelector": {"matchExpressions": [{"key": "rev", "operator": "Exists"}]},
              "matchLabelKeys": ["rev"]}
    assert _invalid(_pod({"rev": "r"}, spread=spread)) == [
        ("spec.topologySpreadConstraints[0].matchLabelKeys[0]",
         'Invalid value: "rev": exists in both matchLabelKeys and labelSelector')]
    # upstream's rule looks at the merged selector: without the label there is no second occurrence
    assert _server().create(_pod({}, spread=spread)).metadata.name == "p"
    # a key in mismatchLabelKeys may also be in the selector (NotIn narrows further)
    term = {"labelSelector": sel, "mismatchLabelKeys": ["rev"]}
    assert _server().create(_pod({"rev": "r"}, term)).metadata.name == "p"


_KEYS = st.sampled_from(["a", "b", "c"])
_VALUES = st.sampled_from(["x", "y"])
_LABELS = st.dictionaries(_KEYS, _VALUES, max_size=3)
_EXPR = st.fixed_dictionaries({"key": _KEYS, "operator": st.sampled_from(["In", "NotIn"]),
                               "values": st.lists(_VALUES, min_size=1, max_size=2)})


@settings(max_examples=200, deadline=None)
@given(own=_LABELS, other=_LABELS, match_labels=_LABELS, exprs=st.lists(_EXPR, max_size=2),
       match=st.lists(_KEYS, max_size=3), mismatch=st.lists(_KEYS, max_size=3))
def test_merged_selector_is_the_original_and_the_pods_values(
        own: dict[str, str], other: dict[str, str], match_labels: dict[str, str],
        exprs: list[dict[str, Any]], match: list[str], mismatch: list[str]) -> None:
    original = LabelSelector.model_validate({"matchLabels": match_labels, "matchExpressions": exprs})
    merged = merged_selector(original, own, match, mismatch)
    expected = (selector_from_model(original).matches(other)
                and all(other.get(k) == own[k] for k in match if k in own)
                and all(other.get(k) != own[k] for k in mismatch if k in own))
    assert selector_from_model(merged).matches(other) == expected
    assert original == LabelSelector.model_validate({"matchLabels": match_labels, "matchExpressions": exprs})
