"""Controller selection with kube-controller-manager's ``--controllers`` syntax."""

from __future__ import annotations

import pytest

from kbatch.runtime.selection import ControllerInfo, SelectionError, parse_selection, select

CATALOG = [
    ControllerInfo("job", "runs Jobs"),
    ControllerInfo("garbage-collector", "deletes orphans"),
    ControllerInfo("podgc", "deletes old pods"),
    ControllerInfo("bootstrapsigner", "off by default", enabled_by_default=False),
]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("*", ["job", "garbage-collector", "podgc"]),
        (None, ["job", "garbage-collector", "podgc"]),
        ("", []),
        ([], []),
        ("*,-podgc", ["job", "garbage-collector"]),
        ("-podgc,*", ["job", "garbage-collector"]),
        ("job,garbage-collector", ["job", "garbage-collector"]),
        ("garbage-collector, job", ["job", "garbage-collector"]),
        ("*,bootstrapsigner", ["job", "garbage-collector", "podgc", "bootstrapsigner"]),
        ("bootstrapsigner", ["bootstrapsigner"]),
        ("-job", []),
        (["*", "-job"], ["garbage-collector", "podgc"]),
        ("job,-job", ["job"]),  # upstream: the first explicit term decides
    ],
)
def test_select(text: str | None, want: list[str]) -> None:
    assert select(text, CATALOG) == want


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(SelectionError) as err:
        select("*,-nope,jbo", CATALOG)
    message = str(err.value)
    assert "'nope'" in message and "'jbo'" in message
    assert "bootstrapsigner, garbage-collector, job, podgc" in message


def test_parse_selection() -> None:
    assert parse_selection(" a , -b ,") == ["a", "-b"]
    assert parse_selection(None) == ["*"]
    assert parse_selection("") == []


ALIASED = [
    ControllerInfo("job", "runs Jobs", aliases=("job-controller",)),
    ControllerInfo("podgc", "deletes old pods", aliases=("pod-garbage-collector-controller",)),
]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("job-controller", ["job"]),
        ("*,-pod-garbage-collector-controller", ["job"]),
        ("-job-controller,*", ["podgc"]),
        ("pod-garbage-collector-controller,-podgc", ["podgc"]),  # the first explicit term decides
    ],
)
def test_upstream_names_select_the_same_controller(text: str, want: list[str]) -> None:
    assert select(text, ALIASED) == want


def test_builtin_catalog_accepts_kube_controller_manager_names() -> None:
    from kbatch.runtime.catalog import default_catalog

    catalog = default_catalog()
    assert catalog.resolve("job-controller,garbagecollector") == ["garbage-collector", "job"]
    assert "ttl-after-finished" not in catalog.resolve("*,-ttl-after-finished-controller")
    assert catalog["nodelifecycle"].name == "node-lifecycle"
