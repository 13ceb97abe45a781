"""A Job whose script globs its ConfigMap volume and the files it writes, and pipes into and out of
``while``/``for`` loops, through the CLI (each command a separate ``python -m kbatch`` process): no
create-time warning, and ``kbatch logs`` shows what bash and dash print for the same script over
the same files (docs/simulation.md, the container shell)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.processes import kbatch_ok, kbatch_process

CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"},
          "data": {"b.conf": "beta 2\n", "a.conf": "alpha 1\n", "notes.txt": "n\n"}}
SCRIPT = "\n".join([
    "for f in /etc/app/*.conf; do echo \"conf $f\"; done",
    "cat /etc/app/*.conf | sort -r | while read -r key value; do echo \"$key=$value\"; done",
    "echo /etc/app/*.none '/etc/app/*.txt' /etc/app/*.txt",
    "for i in 3 1 2; do touch /tmp/out-$i; done",
    "ls /tmp/out-* | while read -r path; do echo \"made $path\"; done | sort -r | head -n 2",
    "ls /etc/app/[ab].conf > /dev/null && ! ls /etc/app/[!ab].conf 2>/dev/null || exit 4",
    "set -f; echo /tmp/*",
])
JOB = {
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "globs"},
    "spec": {"backoffLimit": 0, "template": {"spec": {
        "restartPolicy": "Never",
        "volumes": [{"name": "app", "configMap": {"name": "app"}}],
        "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", SCRIPT],
                        "volumeMounts": [{"name": "app", "mountPath": "/etc/app"}]}]}}},
}


def test_a_job_script_globs_its_volume_and_pipes_through_loops(tmp_path: Path) -> None:
    objects = {"apiVersion": "v1", "kind": "List", "items": [CONFIG, JOB]}
    (tmp_path / "objects.json").write_text(json.dumps(objects))
    kbatch_ok(tmp_path, "nodes", "add", "--count", "1")
    applied = kbatch_process(tmp_path, "apply", "-f", str(tmp_path / "objects.json"))
    assert applied.returncode == 0 and "Warning" not in applied.stderr, applied.stderr
    kbatch_ok(tmp_path, "advance", "5s")
    assert kbatch_ok(tmp_path, "logs", "job/globs").splitlines() == [
        "conf /etc/app/a.conf", "conf /etc/app/b.conf",
        "beta=2", "alpha=1",
        "/etc/app/*.none /etc/app/*.txt /etc/app/notes.txt",
        "made /tmp/out-3", "made /tmp/out-2",
        "/tmp/*",
    ]
    pods = json.loads(kbatch_ok(tmp_path, "get", "pods", "-o", "json"))["items"]
    term = pods[0]["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (0, "Completed")
