"""``kbatch report`` through the real entry point: separate commands on one state directory, ``-f``
files of ``get -o json`` output, ``--server``, plots and the HTML page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbatch.server.process import ServeProcess
from tests.cli.test_remote import server  # noqa: F401  (its kbatch serve fixture)


def gpu_job(name: str, seconds: int = 72) -> str:
    return json.dumps({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": {"study": "fifo"}},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{
            "name": "c", "image": "busybox", "command": ["sleep", str(seconds)],
            "resources": {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}}}]}}}})


def _by_name(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {w["name"]: w for w in doc["workloads"]}


def test_sleep_72_jobs_on_a_free_cluster_then_a_full_one(kb: Any, tmp_path: Path) -> None:
    kb.ok("nodes", "add", "--count", "4", "--gpu", "8")
    kb.ok("advance", "10s")
    kb.ok("apply", "-f", "-", input_=gpu_job("solo"))
    kb.ok("advance", "2m")
    solo = _by_name(json.loads(kb.ok("report", "-o", "json")))["solo"]
    # the pod sleeps 72 s from its creation; the Job controller records Complete 1 s later (its
    # batching period, upstream syncJobBatchPeriod), so the Job's completion time is 73 s
    assert solo["outcome"] == "Succeeded" and solo["scheduling_latency"] == 0 and solo["queueing_delay"] == 0
    assert solo["completion_time"] == 73 and solo["run_time"] == 73
    [pod] = json.loads(kb.ok("report", "-o", "json"))["pods"]
    assert pod["finished_s"] - pod["started_s"] == 72 and pod["node"].startswith("node-")

    for i in range(5):  # five 8-GPU Jobs at once on four 8-GPU nodes: the fifth waits for a node
        kb.ok("apply", "-f", "-", input_=gpu_job(f"burst-{i}"))
    kb.ok("advance", "5m")
    doc = json.loads(kb.ok("report", "-o", "json", "--by", "label=study"))
    burst = [w for w in doc["workloads"] if w["name"].startswith("burst-")]
    assert sorted(w["queueing_delay"] for w in burst) == [0, 0, 0, 0, 72]
    assert sorted(w["completion_time"] for w in burst) == [73, 73, 73, 73, 145]
    fifo = next(g for g in doc["summary"] if g["group"] == "fifo")
    assert fifo["workloads"] == 6 and fifo["durations"]["queueing_delay"]["max"] == 72
    assert max(v for _, v in doc["cluster"]["pending_pods"]) == 1
    gpu = doc["cluster"]["utilisation"]["nvidia.com/gpu"]
    assert max(v for _, v in gpu["ratio"]) == 1.0 and 0 < gpu["mean"] < 1

    # the same numbers from files of `kbatch get -o json` (what kubectl get -o json prints)
    files = []
    for kind in ("jobs", "pods", "nodes"):
        path = tmp_path / f"{kind}.json"
        path.write_text(kb.ok("get", kind, "-o", "json"))
        files += ["-f", str(path)]
    from_files = json.loads(kb.ok("report", "-o", "json", *files))
    assert _by_name(from_files) == _by_name(doc)

    table = kb.ok("report", "--summary")
    assert "Aggregates (seconds)" in table and "burst-4" not in table
    csv_rows = kb.ok("report", "-o", "csv").splitlines()
    assert csv_rows[0].startswith("kind,namespace,name,") and len(csv_rows) == 7

    res = kb("report", "--plot", str(tmp_path / "plots"), "--html", str(tmp_path / "r.html"), "-o", "json")
    assert res.code == 0 and "wrote" in res.err
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == ["durations.png", "gantt.png",
                                                                     "queue.png", "utilisation.png"]
    assert "data:image/png;base64," in (tmp_path / "r.html").read_text()


def test_bad_options_are_one_error_line(kb: Any, tmp_path: Path) -> None:
    res = kb("report", "--by", "colour")
    assert res.code == 1 and res.err.strip() == \
        'error: invalid --by "colour": use namespace, queue, kind or label=KEY'
    res = kb("report", "-o", "yaml")
    assert res.code == 1 and "allowed formats are: table,json,csv" in res.err
    res = kb("report", "-f", str(tmp_path / "missing.json"))
    assert res.code == 1 and res.err.startswith("error: ") and "Traceback" not in res.err
    bad = tmp_path / "bad.json"
    bad.write_text('{"items": 3}')
    res = kb("report", "-f", str(bad))
    assert res.code == 1 and res.err.startswith("error: ")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
                               "spec": {"containers": "nope"}}))
    res = kb("report", "-f", str(odd), "--plot", str(tmp_path / "plots"))
    assert res.code == 1 and res.err.strip() == \
        "error: cannot read pod x: a field has the wrong type ('str' object has no attribute 'get')"
    assert not (tmp_path / "plots").exists()


def test_report_through_kbatch_serve(kb: Any, server: ServeProcess) -> None:  # noqa: F811
    remote = ("--server", server.url)
    kb.ok(*remote, "nodes", "add", "--count", "1", "--gpu", "8")
    kb.ok(*remote, "apply", "-f", "-", input_=gpu_job("remote", 30))
    kb.ok(*remote, "advance", "1m")
    w = _by_name(json.loads(kb.ok(*remote, "report", "-o", "json")))["remote"]
    assert (w["outcome"], w["completion_time"], w["queueing_delay"]) == ("Succeeded", 31, 0)
    assert not kb.state.exists()


def test_report_dash_n_on_the_cli(kb: Any) -> None:
    kb.ok("nodes", "add", "--count", "1", "--gpu", "8")
    kb.ok("apply", "-f", "-", input_=json.dumps({"apiVersion": "v1", "kind": "Namespace",
                                                  "metadata": {"name": "team-a"}}))
    for ns in ("default", "team-a"):
        kb.ok("-n", ns, "apply", "-f", "-", input_=gpu_job(f"j-{ns}", 5))
    kb.ok("advance", "1m")
    names = [w["name"] for w in json.loads(kb.ok("report", "-n", "team-a", "-o", "json"))["workloads"]]
    assert names == ["j-team-a"]
    assert len(json.loads(kb.ok("report", "-o", "json"))["workloads"]) == 2


def test_dash_f_reads_paths_as_kubectl_does_and_outputs_fail_in_one_line(kb: Any, tmp_path: Path) -> None:
    """``-f`` as ``kubectl get -f``/``kbatch apply -f`` (cli-runtime's visitor): a missing path is
    ``the path "X" does not exist``, a directory contributes its .json/.yaml/.yml files; an output
    that cannot be written is one line naming it, not Python's ``[Errno …]``."""
    kb.ok("nodes", "add", "--count", "1", "--gpu", "8")
    kb.ok("apply", "-f", "-", input_=gpu_job("one", 5))
    kb.ok("advance", "1m")
    missing = tmp_path / "missing.json"
    res = kb("report", "-f", str(missing))
    assert res.code == 1 and res.err == f'error: the path "{missing}" does not exist\n'
    run = tmp_path / "run"
    run.mkdir()
    for kind in ("jobs", "pods", "nodes"):
        (run / f"{kind}.json").write_text(kb.ok("get", kind, "-o", "json"))
    (run / "notes.txt").write_text("not a manifest")
    [w] = json.loads(kb.ok("report", "-f", str(run), "-o", "json"))["workloads"]
    assert (w["name"], w["outcome"], w["completion_time"]) == ("one", "Succeeded", 6)
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    res = kb("report", "--html", str(blocker / "r.html"))
    assert res.code == 1 and res.out == ""
    assert res.err == f"error: cannot write {blocker / 'r.html'}: Not a directory\n"
    res = kb("report", "--plot", str(blocker / "plots"))
    assert res.code == 1 and res.err == f"error: cannot write {blocker / 'plots'}: Not a directory\n"


def test_by_queue_counts_a_pending_job_under_its_cluster_queue(kb: Any) -> None:
    """Kueue's sample Job twice against 4 cpu of quota: one admitted, one waiting in ``user-queue``;
    ``--by queue`` puts both under ``cluster-queue`` (the LocalQueue's ClusterQueue)."""
    root = Path(__file__).resolve().parents[2] / "examples" / "kueue"
    kb.ok("nodes", "add", "--count", "2")
    kb.ok("apply", "-f", str(root / "queues.yaml"))
    job = (root / "job.yaml").read_text()
    kb.ok("apply", "-f", "-", input_=job)
    kb.ok("apply", "-f", "-", input_=job.replace("name: sample-job", "name: second-job"))
    kb.ok("advance", "5s")
    doc = json.loads(kb.ok("report", "-o", "json", "--by", "queue"))
    found = _by_name(doc)
    assert found["sample-job"]["admitted"] is not None and found["second-job"]["admitted"] is None
    assert found["sample-job"]["queue"] == found["second-job"]["queue"] == "cluster-queue"
    assert [g["group"] for g in doc["summary"]] == ["cluster-queue", "all"]
