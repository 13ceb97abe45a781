"""The order of merged lists in a strategic merge patch and ``$setElementOrder``, as upstream's
``strategicpatch/patch.go`` (``mergeSlice`` → ``normalizeElementOrder``/``mergeSortedSlice``,
``mergePatchIntoOriginal``) sets it. Where the 2017 design proposal ("Preserve Order in Strategic
Merge Patch") and the code differ — the code interleaves server-only items by live position instead
of putting them all first — the expectations follow the code."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.errors import InternalError
from kbatch.apiserver.element_order import normalize
from kbatch.apiserver.strategic import apply_strategic_patch


def _names(items: list[dict[str, Any]]) -> list[str]:
    return [item["name"] for item in items]


def _env(*names: str, value: str = "old") -> list[dict[str, Any]]:
    return [{"name": n, "value": value} for n in names]


def _merged_env(live: list[str], patch: dict[str, Any]) -> list[str]:
    """A container's ``env`` (merged on ``name``) patched."""
    out = apply_strategic_patch({"spec": {"containers": [{"name": "c", "env": _env(*live)}]}},
                                {"spec": {"containers": [{"name": "c", **patch}]}})
    return _names(out["spec"]["containers"][0]["env"])


def test_patch_items_take_the_patch_order_and_server_only_items_stay_by_live_position() -> None:
    # the design proposal's example: live B C A, patch A' B' D -> C A' B' D
    assert _merged_env(["B", "C", "A"], {"env": _env("A", "B", "D", value="new")}) == ["C", "A", "B", "D"]


def test_a_new_item_goes_before_the_live_items() -> None:
    # kubernetes.io "Update API Objects in Place Using kubectl patch": the added container comes first
    doc = {"spec": {"containers": [{"name": "patch-demo-ctr", "image": "nginx"}]}}
    added = {"spec": {"containers": [{"name": "patch-demo-ctr-2", "image": "redis"}]}}
    out = apply_strategic_patch(doc, added)
    assert _names(out["spec"]["containers"]) == ["patch-demo-ctr-2", "patch-demo-ctr"]
    finalizers = apply_strategic_patch({"metadata": {"finalizers": ["a"]}},
                                       {"metadata": {"finalizers": ["b"]}})
    assert finalizers["metadata"]["finalizers"] == ["b", "a"]


def test_kubelet_conditions_go_before_pod_scheduled() -> None:
    """Why ``kubectl get pod -o yaml`` lists PodScheduled last: the scheduler's condition is live, the
    kubelet's first status patch adds its four; a later patch of those four keeps the order."""
    kubelet = ["PodReadyToStartContainers", "Initialized", "ContainersReady", "Ready"]
    live = {"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}}
    running = apply_strategic_patch(live, {"status": {"conditions": [
        {"type": t, "status": "True"} for t in kubelet]}})
    assert [c["type"] for c in running["status"]["conditions"]] == [*kubelet, "PodScheduled"]
    done = apply_strategic_patch(running, {"status": {"conditions": [
        {"type": t, "status": "False"} for t in kubelet]}})
    assert [c["type"] for c in done["status"]["conditions"]] == [*kubelet, "PodScheduled"]
    assert all(c["status"] == "False" for c in done["status"]["conditions"][:4])


def test_set_element_order_reorders_without_content_changes() -> None:
    assert _merged_env(["B", "A"], {"$setElementOrder/env": [{"name": "A"}, {"name": "B"}]}) == ["A", "B"]


def test_set_element_order_with_server_only_items() -> None:
    patch = {"$setElementOrder/env": [{"name": "A"}, {"name": "B"}], "env": _env("A", "B", value="new")}
    assert _merged_env(["C", "B", "D", "A", "E"], patch) == ["C", "D", "A", "B", "E"]


def test_set_element_order_naming_absent_items_ignores_them() -> None:
    patch = {"$setElementOrder/env": [{"name": "C"}, {"name": "A"}, {"name": "B"}],
             "env": _env("A", "B", value="new")}
    assert _merged_env(["A", "B"], patch) == ["A", "B"]


def test_set_element_order_of_a_primitive_list_then_deletions() -> None:
    # the design proposal's finalizers example (live reordered by the server, f added, c deleted)
    doc = {"metadata": {"finalizers": ["b", "e", "a", "c", "d"]}}
    patch = {"metadata": {"$setElementOrder/finalizers": ["a", "b", "f"],
                          "$deleteFromPrimitiveList/finalizers": ["c"], "finalizers": ["f"]}}
    assert apply_strategic_patch(doc, patch)["metadata"]["finalizers"] == ["e", "a", "b", "f", "d"]


def test_set_element_order_out_of_the_patch_order_is_rejected() -> None:
    patch = {"$setElementOrder/env": [{"name": "A"}, {"name": "B"}], "env": _env("B", "A")}
    with pytest.raises(InternalError, match=r"doesn't match \$setElementOrder list"):
        _merged_env(["A", "B"], patch)
    with pytest.raises(InternalError, match="expected a"):
        _merged_env(["A"], {"$setElementOrder/env": "A"})


_KEYS = st.lists(st.sampled_from("ABCDEFG"), unique=True, max_size=6)


@settings(max_examples=200, deadline=None)
@given(live=_KEYS, patch=_KEYS, ordered=st.booleans())
def test_merged_lists_keep_the_patch_order_and_the_live_order(live: list[str], patch: list[str],
                                                                ordered: bool) -> None:
    """Invariants of the order: every live and patch item once; the patch's items in the patch's
    (or the ``$setElementOrder`` list's) order; the other live items in the live order."""
    body: dict[str, Any] = {"env": _env(*patch, value="new")}
    order = sorted(patch) if ordered else patch
    if ordered:
        body = {"$setElementOrder/env": [{"name": n} for n in order], "env": _env(*order, value="new")}
    out = _merged_env(live, body)
    assert sorted(out) == sorted(set(live) | set(patch))
    assert [n for n in out if n in patch] == order
    assert [n for n in out if n not in patch] == [n for n in live if n not in patch]


def test_normalize_leaves_its_inputs_alone() -> None:
    merged, order, live = [{"name": "b"}, {"name": "a"}], [{"name": "a"}], [{"name": "b"}]
    assert normalize(merged, order, live, "name") == [{"name": "a"}, {"name": "b"}]
    assert merged == [{"name": "b"}, {"name": "a"}] and order == [{"name": "a"}]
