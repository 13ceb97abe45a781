"""``kbatch get`` output options: -o jsonpath / custom-columns, --sort-by, -L, --show-labels, ``all``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.jsonpath import TemplateError, compile_template, evaluate
from kbatch.cli.outputs import custom_columns, sort_objects
from tests.cli.conftest import EXAMPLES

# The input of kubectl's JSONPath reference page (kubernetes.io/docs/reference/kubectl/jsonpath/).
DOC = {
    "kind": "List",
    "items": [
        {"kind": "None",
         "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
         "status": {"capacity": {"cpu": "4"},
                    "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
        {"kind": "None", "metadata": {"name": "127.0.0.2"},
         "status": {"capacity": {"cpu": "8"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"},
                                                             {"type": "another", "address": "127.0.0.3"}]}},
    ],
    "users": [{"name": "myself", "user": {}},
              {"name": "e2e", "user": {"username": "admin", "password": "secret"}}],
}


@pytest.mark.parametrize(("template", "expected"), [
    ("{.kind}", "List"),
    ("{['kind']}", "List"),
    ("{..name}", "127.0.0.1 127.0.0.2 myself e2e"),
    ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
    ("{.users[0].name}", "myself"),
    ("{.users[*].name}", "myself e2e"),
    ("{.items[0:1].metadata.name}", "127.0.0.1"),
    ("{.items[-1:].metadata.name}", "127.0.0.2"),
    ('{.users[?(@.name=="e2e")].user.password}', "secret"),
    ("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
     '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] '),
    (r'{range .items[*]}{.metadata.name}{"\t"}{end}', "127.0.0.1\t127.0.0.2\t"),
    (r"{.items[0].metadata.labels.kubernetes\.io/hostname}", "127.0.0.1"),
    ("{.items[*].status.addresses[?(@.type=='another')].address}", "127.0.0.3"),
    ("nodes: {.items[*].metadata.name}!", "nodes: 127.0.0.1 127.0.0.2!"),
    ("{.missing}{.items[5].metadata.name}", ""),
])
def test_kubectl_documented_jsonpath_examples(template: str, expected: str) -> None:
    assert evaluate(compile_template(template), DOC) == expected


@pytest.mark.parametrize("template", ["{.items[", "{range .items[*]}{.x}", "{end}", '{"unterminated}'])
def test_bad_templates_are_refused(template: str) -> None:
    with pytest.raises(TemplateError):
        compile_template(template)


@given(st.lists(st.dictionaries(st.sampled_from("abc"), st.integers(), min_size=1), max_size=5))
def test_range_repeats_its_body_per_match(items: list[dict[str, int]]) -> None:
    data = {"items": [{"v": item} for item in items]}
    whole = evaluate(compile_template('{range .items[*]}{.v}{";"}{end}'), data)
    assert whole == "".join(json.dumps(i, separators=(",", ":"), sort_keys=True) + ";" for i in items)


def test_custom_columns_match_kubectls_format() -> None:
    text = custom_columns("NAME:.metadata.name,CPU:{.status.capacity.cpu},ADDR:status.addresses[*].address,"
                          "X:.spec.x", DOC["items"])
    assert text.splitlines() == ["NAME        CPU   ADDR                  X",
                                 "127.0.0.1   4     127.0.0.1             <none>",
                                 "127.0.0.2   8     127.0.0.2,127.0.0.3   <none>"]
    with pytest.raises(TemplateError, match="expected <header>:<json-path-expr>"):
        custom_columns("NAME", [])


@given(st.one_of(st.lists(st.integers(-10**6, 10**6), max_size=8), st.lists(st.text(max_size=6), max_size=8)))
def test_sort_by_orders_numbers_by_value_and_strings_by_bytes(keys: list[Any]) -> None:
    objs = [{"k": k, "i": i} for i, k in enumerate(keys)]
    ordered = sort_objects(objs, "{.k}")
    assert [o["i"] for o in ordered] == [i for i, _ in sorted(enumerate(keys), key=lambda p: (
        p[1].encode() if isinstance(p[1], str) else p[1]))]  # stable, as Python's sort


def test_sort_by_puts_objects_without_the_field_first_and_refuses_a_field_nobody_has() -> None:
    objs: list[dict[str, Any]] = [{"n": 2, "k": "b"}, {"k": "a"}, {"n": 1, "k": "c"}]
    assert [o["k"] for o in sort_objects(objs, ".n")] == ["a", "c", "b"]
    with pytest.raises(TemplateError, match="couldn't find any field"):
        sort_objects(objs, ".nope")


def _nodes(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "2", "--label", "rack=r1")
    kb.ok("nodes", "add", "--count", "1", "--prefix", "big", "--cpu", "64", "--label", "rack=r2")


def test_get_jsonpath_and_custom_columns_through_the_cli(kb: Any) -> None:
    _nodes(kb)
    assert kb.ok("get", "nodes", "-o", "jsonpath={.items[*].metadata.name}") == "big-0 node-0 node-1"
    text = kb.ok("get", "nodes", "-o", 'jsonpath={range .items[*]}{.metadata.name}={.status.capacity.cpu}'
                                       '{"\\n"}{end}')
    assert text == "big-0=64\nnode-0=4\nnode-1=4\n"
    assert kb.ok("get", "node", "big-0", "-o", "jsonpath={.metadata.labels.rack}") == "r2"
    cols = kb.ok("get", "nodes", "-o", "custom-columns=NAME:.metadata.name,RACK:.metadata.labels.rack",
                 "--sort-by", "{.status.capacity.cpu}", "--no-headers")
    assert cols.splitlines() == ["node-0   r1", "node-1   r1", "big-0    r2"]
    bad = kb("get", "nodes", "-o", "jsonpath={.items[")
    assert bad.code == 1 and bad.err.startswith("error: error parsing jsonpath {.items[")
    bad = kb("get", "nodes", "-o", "yamlish")
    assert bad.code == 1 and 'output format "yamlish"' in bad.err


def test_get_label_columns_and_show_labels(kb: Any) -> None:
    _nodes(kb)
    lines = kb.ok("get", "nodes", "-L", "rack,kubernetes.io/os", "--show-labels").splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION", "RACK", "OS", "LABELS"]
    big = lines[1].split()
    assert big[0] == "big-0" and big[5:7] == ["r2", "linux"]
    assert big[7].split(",") == sorted(big[7].split(",")) and "rack=r2" in big[7].split(",")


def test_get_all_lists_the_all_category(kb: Any) -> None:
    _nodes(kb)
    kb.ok("apply", "-f", str(EXAMPLES / "pi-job.yaml"))
    out = kb.ok("get", "all")
    blocks = out.strip().split("\n\n")
    assert blocks[0].splitlines()[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert blocks[0].splitlines()[1].startswith("pod/pi-")
    assert blocks[1].splitlines()[1].split()[:3] == ["service/kubernetes", "ClusterIP", "10.0.0.1"]
    assert blocks[2].splitlines()[1].startswith("job.batch/pi ")
    names = kb.ok("get", "all", "-o", "name").split()
    assert "job.batch/pi" in names and any(n.startswith("pod/pi-") for n in names)
    empty = kb("get", "all", "-n", "elsewhere")
    assert empty.code == 0 and empty.err.strip() == "No resources found in elsewhere namespace."


def test_top_nodes_and_pods(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "1", "--cpu", "8", "--memory", "32Gi")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "busy"},
           "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "3600"],
                                    "resources": {"requests": {"cpu": "2", "memory": "8Gi"}}}]}}
    kb.ok("apply", "-f", "-", input_=json.dumps(pod))
    kb.ok("advance", "2s")
    assert kb.ok("top", "nodes").splitlines() == [
        "NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   ",
        "node-0   2000m        25%      8192Mi          25%         "]
    assert kb.ok("top", "pods", "--no-headers").split() == ["busy", "2000m", "8192Mi"]
    assert kb("top", "pods", "-n", "other").err.strip() == "No resources found in other namespace."
    assert kb("top", "widgets").code == 1


names = st.text(alphabet="abcxyz", min_size=1, max_size=5)


@given(st.lists(st.fixed_dictionaries({"a": names, "b": st.fixed_dictionaries({"c": names})}), max_size=5))
def test_union_of_paths_prints_each_member_in_turn(items: list[dict[str, Any]]) -> None:
    """client-go's union ``['a', 'b.c']``: every match of the first path, then of the second."""
    got = evaluate(compile_template("{.items[*]['a', 'b.c']}"), {"items": items})
    assert got == " ".join([i["a"] for i in items] + [i["b"]["c"] for i in items])


def test_a_quoted_name_is_a_dotted_path_as_kubectl_reads_it() -> None:
    doc = {"labels": {"kubernetes.io/os": "linux", "kubernetes": {"io/os": "nested"}}}
    assert evaluate(compile_template("{.labels['kubernetes.io/os']}"), doc) == "nested"
    assert evaluate(compile_template(r"{.labels.kubernetes\.io/os}"), doc) == "linux"


def test_jsonpath_as_json_prints_one_array_per_executed_node() -> None:
    from kbatch.api.jsonpath import evaluate_as_json

    got = evaluate_as_json(compile_template('x{range .items[*]}{.metadata.name}{end}{.nope}'), DOC)
    assert [json.loads(part) for part in got.replace("]\n[", "]\x00[").split("\x00")] == \
        [["x"], ["127.0.0.1"], ["127.0.0.2"], []]
    assert got.endswith("[]\n") and '[\n    "x"\n]\n' in got


def test_custom_columns_file_is_two_lines_of_words() -> None:
    from kbatch.cli.outputs import columns_from_file

    assert columns_from_file("NAME  CPU\n.metadata.name {.status.capacity.cpu}\n") == \
        "NAME:.metadata.name,CPU:{.status.capacity.cpu}"
    for text, message in (("", "missing header line"), ("NAME\n", "missing spec line"),
                          ("A B\n.a\n", "number of headers (2) and field specifications (1) don't match")):
        with pytest.raises(TemplateError, match=re.escape(message)):
            columns_from_file(text)


@given(st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 4096)), min_size=1, max_size=8),
       st.sampled_from([None, "cpu", "memory"]))
def test_top_sorts_by_usage_and_sums(usages: list[tuple[int, int]], sort_by: str | None) -> None:
    from kbatch.cli.commands.top import format_pods

    metrics = [{"metadata": {"name": f"p{i}", "namespace": "default"},
                "containers": [{"name": "c", "usage": {"cpu": f"{cpu}m", "memory": f"{mem}Mi"}}]}
               for i, (cpu, mem) in enumerate(usages)]
    lines = format_pods(metrics, False, False, True, sort_by, total=True).split("\n")
    rows = [line.split() for line in lines[1:-2]]
    column = {"cpu": 1, "memory": 2}.get(sort_by or "", 0)
    keys = [int(r[column][:-1] if column == 1 else r[column][:-2]) if column else r[0] for r in rows]
    assert keys == (sorted(keys, reverse=True) if column else sorted(keys))
    assert lines[-2].split() == ["________", "________"]
    assert lines[-1].split() == [f"{sum(c for c, _ in usages)}m", f"{sum(m for _, m in usages)}Mi"]


def test_absent_custom_resource_columns_print_blank_as_kubectl(kb: Any) -> None:
    """A scheduler-plugins PodGroup without pods has no running/succeeded/failed counts: the
    CRD's table sends null cells (apiextensions ``tableconvertor``), which kubectl prints blank
    (cli-runtime ``printTable`` writes only non-nil cells), not ``<none>``; kbatch get the same,
    byte for byte as kubectl printed it against ``kbatch serve``."""
    group = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: lonely}\n"
             "spec: {minMember: 2}\n")
    kb.ok("apply", "-f", "-", input_=group)
    assert kb.ok("get", "pg", "lonely").splitlines() == [
        "NAME     PHASE     MINMEMBER   RUNNING   SUCCEEDED   FAILED   AGE",
        "lonely   Pending   2                                          0s",
    ]


def test_get_all_leaves_out_claims(kb: Any) -> None:
    """kube-apiserver's PersistentVolumeClaim storage declares short names only, no categories
    (``pkg/registry/core/persistentvolumeclaim/storage/storage.go``): ``get all`` never lists claims."""
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    kb.ok("apply", "-f", "-", input_=json.dumps(claim))
    assert kb.ok("get", "pvc", "-o", "name").strip() == "persistentvolumeclaim/data"
    res = kb("get", "all", "-o", "name")  # the API server's kubernetes Service, no claim
    assert res.code == 0 and res.out.split() == ["service/kubernetes"]
