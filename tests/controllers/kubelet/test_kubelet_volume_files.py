"""A container's script reads its mounted volumes as the kubelet's volume plugins write them, and
what init containers write to a shared emptyDir (kbatch.controllers.kubelet.volume_files,
kbatch.sim.files): ConfigMap/Secret keys as files with ``items``/``path`` and ``subPath``, the
downward API's ``FormatMap`` files, projected volumes, and the container's own writes."""

from __future__ import annotations

import base64

from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.api.core_v1 import Event
from kbatch.controllers.kubelet import pod_logs
from kbatch.controllers.kubelet.volume_files import format_map
from kbatch.sim.files import FileSystem, Mount

from .cluster import get_pod, sim_cluster

CONFIG = f"""
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: default}}
data: {{settings: "mode=fast\\n", rounds: "3", nested: "deep"}}
---
apiVersion: v1
kind: Secret
metadata: {{name: creds, namespace: default}}
data: {{password: {base64.b64encode(b"hunter2").decode()}}}
"""


def run_pod(script: str, mounts: str, volumes: str, init: str = "", labels: str = "{app: demo, tier: batch}",
            seconds: float = 60) -> tuple[str, object]:
    cp = sim_cluster(1)
    cp.apply(CONFIG)
    cp.apply(f"""
apiVersion: v1
kind: Pod
metadata: {{name: p, namespace: default, labels: {labels}, annotations: {{note: 'say "hi"'}}}}
spec:
  restartPolicy: Never
{init}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, {script!r}]
    volumeMounts: {mounts}
  volumes: {volumes}
""")
    cp.advance(seconds)
    return pod_logs(cp, "default", "p", "main"), get_pod(cp, "p")


def test_config_map_keys_are_files_and_the_script_loops_over_them() -> None:
    logs, pod = run_pod(
        "n=$(cat /etc/config/rounds); i=0; while [ $i -lt $n ]; do echo round $i; sleep 5; i=$((i+1)); done;"
        " cat /etc/config/settings; ls /etc/config",
        "[{name: config, mountPath: /etc/config}]", "[{name: config, configMap: {name: settings}}]")
    assert logs == "round 0\nround 1\nround 2\nmode=fast\nnested\nrounds\nsettings\n"
    term = pod.status.container_statuses[0].state.terminated
    assert (pod.status.phase, term.exit_code) == ("Succeeded", 0)
    assert (term.finished_at - term.started_at).total_seconds() == 15


def test_items_paths_sub_path_and_secrets() -> None:
    logs, _ = run_pod(
        "cat /etc/app/conf/r.txt; echo; [ -f /etc/app/settings ] || echo no-settings; cat /etc/one;"
        " echo; cat /etc/secret/password; echo; [ -d /etc/app/conf ] && echo dir",
        "[{name: picked, mountPath: /etc/app}, {name: whole, mountPath: /etc/one, subPath: nested},"
        " {name: secret, mountPath: /etc/secret}]",
        "[{name: picked, configMap: {name: settings, items: [{key: rounds, path: conf/r.txt}]}},"
        " {name: whole, configMap: {name: settings}}, {name: secret, secret: {secretName: creds}}]")
    assert logs.splitlines() == ["3", "no-settings", "deep", "hunter2", "dir"]


def test_downward_api_files_are_written_as_format_map() -> None:
    logs, _ = run_pod("cat /etc/podinfo/labels; echo; cat /etc/podinfo/annotations; echo;"
                      " cat /etc/podinfo/name", "[{name: podinfo, mountPath: /etc/podinfo}]",
                      "[{name: podinfo, downwardAPI: {items: ["
                      "{path: labels, fieldRef: {fieldPath: metadata.labels}},"
                      " {path: annotations, fieldRef: {fieldPath: metadata.annotations}},"
                      " {path: name, fieldRef: {fieldPath: metadata.name}}]}}]")
    lines = logs.splitlines()
    assert lines[:2] == ['app="demo"', 'tier="batch"'] and lines[-1] == "p"
    assert lines[2].startswith("kubectl.kubernetes.io/last-applied-configuration=") and \
        lines[3] == 'note="say \\"hi\\""'  # sorted by key; Go-quoted


def test_a_file_without_a_final_newline_runs_into_the_next_line_as_in_a_real_log() -> None:
    logs, _ = run_pod("cat /etc/config/rounds; echo rounds", "[{name: c, mountPath: /etc/config}]",
                      "[{name: c, configMap: {name: settings}}]")
    assert logs == "3rounds\n"


def test_projected_volume_and_optional_missing_sources() -> None:
    logs, pod = run_pod(
        "ls /etc/all; cat /etc/all/password; echo; cat /etc/all/missing || echo gone",
        "[{name: all, mountPath: /etc/all}]",
        "[{name: all, projected: {sources: ["
        "{configMap: {name: settings, items: [{key: rounds, path: rounds}]}},"
        " {secret: {name: creds}}, {configMap: {name: nope, optional: true}},"
        " {downwardAPI: {items: [{path: ns, fieldRef: {fieldPath: metadata.namespace}}]}}]}}]")
    assert logs.splitlines() == ["ns", "password", "rounds", "hunter2",
                                 "cat: /etc/all/missing: No such file or directory", "gone"]
    assert pod.status.phase == "Succeeded"


def test_read_only_volumes_refuse_writes_and_the_container_layer_takes_them() -> None:
    logs, pod = run_pod(
        "echo x > /etc/config/new; echo status $?; echo done > /tmp/marker; echo more >> /tmp/marker;"
        " cat /tmp/marker; [ -s /tmp/marker ] && exit 4",
        "[{name: config, mountPath: /etc/config}]", "[{name: config, configMap: {name: settings}}]")
    assert logs.splitlines() == ["sh: 1: can't create /etc/config/new: Read-only file system", "status 2",
                                 "done", "more"]
    assert pod.status.container_statuses[0].state.terminated.exit_code == 4


def test_an_init_container_writes_an_empty_dir_the_app_container_reads() -> None:
    init = """  initContainers:
  - name: prep
    image: busybox
    command: [sh, -c, 'echo ready > /work/flag; sleep 2; mkdir -p /work/out']
    volumeMounts: [{name: work, mountPath: /work}]"""
    logs, pod = run_pod(
        "until [ -f /work/flag ]; do sleep 1; done; cat /work/flag; [ -d /work/out ] && echo out;"
        " echo result > /work/out/r; cat /shared/flag",
        "[{name: work, mountPath: /work}, {name: work, mountPath: /shared, readOnly: true}]",
        "[{name: work, emptyDir: {}}]", init=init)
    assert logs.splitlines() == ["ready", "out", "ready"]
    assert pod.status.phase == "Succeeded"


def test_sub_path_expr_gives_each_container_its_own_directory_of_an_empty_dir() -> None:
    """``subPathExpr: $(POD_NAME)`` (upstream's documented use): the init container writes into the
    volume's ``p/`` directory, which the app container reads through the whole volume."""
    init = """  initContainers:
  - name: prep
    image: busybox
    env: [{name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    command: [sh, -c, 'echo mine > /logs/out']
    volumeMounts: [{name: work, mountPath: /logs, subPathExpr: $(POD_NAME)}]"""
    logs, _ = run_pod("ls /all; cat /all/p/out", "[{name: work, mountPath: /all}]",
                      "[{name: work, emptyDir: {}}]", init=init)
    assert logs.splitlines() == ["p", "mine"]


def test_waiting_for_a_file_nobody_writes_runs_until_killed() -> None:
    """``until [ -f /tmp/ready ]; do sleep 1; done`` with no writer: a container that never ends
    (upstream's too), which the interpreter finds at the second iteration instead of spinning."""
    logs, pod = run_pod("echo waiting; until [ -f /tmp/ready ]; do sleep 1; done; echo never", "[]", "[]",
                        seconds=3600)
    assert logs == "waiting\n" and pod.status.phase == "Running"


def test_a_loop_past_the_step_limit_warns_with_an_event() -> None:
    cp = sim_cluster(1)
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done']}
""")
    cp.advance(1)
    warnings = [e for e in cp.client.list(Event, "default").items if e.reason == "SimulationLimit"]
    assert len(warnings) == 1 and "more than 200,000 commands" in warnings[0].message
    assert warnings[0].type == "Warning" and warnings[0].involved_object.field_path == "spec.containers{main}"


@given(st.dictionaries(st.text(st.sampled_from("abz./-_"), min_size=1, max_size=5),
                       st.text(max_size=8), max_size=5))
@settings(max_examples=50)
def test_format_map_is_sorted_quoted_and_has_no_final_newline(values: dict[str, str]) -> None:
    text = format_map(values)
    lines = text.split("\n") if text else []
    assert [line.split("=", 1)[0] for line in lines] == sorted(values)
    assert all(line.split("=", 1)[1].startswith('"') and line.endswith('"') for line in lines)
    assert not text.endswith("\n")


def test_format_map_escapes_what_strconv_quote_escapes() -> None:
    """``FormatMap`` uses ``%q``: a non-printable rune in an annotation is ``\\uNNNN`` (it was written
    raw before), a control byte ``\\xNN``."""
    assert format_map({"a": "x\u200by", "b": "\x01"}) == 'a="x\\u200by"\nb="\\x01"'


@given(st.lists(st.tuples(st.sampled_from(["a", "b", "d/g", "d/e/f"]), st.text(max_size=4)), max_size=6))
def test_files_read_back_what_was_written_and_mounts_shadow_the_layer(writes: list[tuple[str, str]]) -> None:
    files = FileSystem([Mount("/ro", {"k": "v"}), Mount("/rw", {}, writable=True)])
    want: dict[str, str] = {}
    for path, text in writes:
        for root in ("/tmp", "/rw"):
            parent = f"{root}/{path}".rsplit("/", 1)[0]
            for depth in range(2, parent.count("/") + 2):
                assert files.make_dir("/".join(parent.split("/")[:depth])) is None
            assert files.write(f"{root}/{path}", text) is None
            want[f"{root}/{path}"] = text
    assert all(files.read(p) == t for p, t in want.items())
    assert files.read("/ro/k") == "v" and files.write("/ro/k", "x") is not None and files.read("/ro/k") == "v"


def test_a_restarted_container_finds_what_its_earlier_runs_left_in_an_empty_dir() -> None:
    """An emptyDir lives with the pod, so a container restarted in place (here by its own restart
    rule, KEP-5307) reads what its earlier runs wrote there; /tmp is its own layer, fresh each run."""
    cp = sim_cluster(1)
    cp.apply("""
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'cat /tmp/mine; echo run >> /work/runs; wc -l < /work/runs; touch /tmp/mine;
                       [ -f /work/twice ] && exit 0; [ -f /work/once ] && touch /work/twice; touch /work/once;
                       exit 42']
    volumeMounts: [{name: work, mountPath: /work}]
    restartPolicy: Never
    restartPolicyRules: [{action: Restart, exitCodes: {operator: In, values: [42]}}]
  volumes: [{name: work, emptyDir: {}}]
""")
    cp.advance(60)
    pod = get_pod(cp, "p")
    assert pod.status.phase == "Succeeded" and pod.status.container_statuses[0].restart_count == 2
    assert [line.strip() for line in pod_logs(cp, "default", "p", "main").splitlines()
            if not line.startswith("cat")] == ["3"]
