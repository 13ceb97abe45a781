"""Which container commands the simulation does not run as written, and the warning naming them
(kbatch.sim.command.unmodelled_command, kbatch.sim.unmodelled)."""

from __future__ import annotations

import pytest

from kbatch.sim.command import unmodelled_command
from kbatch.sim.unmodelled import unmodelled_warnings


@pytest.mark.parametrize(("argv", "found"), [
    (["sleep", "60"], None), (["sleep", "$(T)"], None), ([], None), (["true"], None),
    (["sh", "-c", "echo a && sleep 1m; exit 3"], None),
    (["bash", "-xc", 'if [[ "$I" == "0" ]]; then exit 1; fi; for i in $(seq 3); do sleep 1; done'], None),
    (["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], "perl -Mbignum=bpi -wle print bpi(2000)"),
    (["python3", "-c", "import sys"], None),  # kbatch/sim/python_c.py
    (["python3", "-c", "import torch"], "python3 -c import torch"),
    (["/bin/sh", "-c", "date; echo Hello from the Kubernetes cluster"], None),  # the CronJob example
    (["sh", "-c", "date +%s"], "date +%s"),
    (["sh", "-c", "if true; then python train.py; fi"], "python train.py"),
    (["sh", "-c", "while true; do sleep 1; done"], None),
    (["sh", "-c", "{ sleep 1; }"], None),
    (["sh", "-c", "f() { python x; }; (f)"], "python x"),
    (["sh", "-c", "f() { sleep 1; }; f | wc -l"], None),  # a call of a function the script defines
    (["sh", "-c", "cat /etc/config/x | awk 1"], "cat /etc/config/x | awk 1"),
    (["sh", "-c", "cat /etc/config/x | wc -l"], None),  # every stage modelled
    (["sh", "-c", "sort -k2 f"], "sort -k2 f"),  # an option kbatch does not model
    (["sh", "-c", "i=0; while [ $i -lt 3 ]; do curl x; i=$((i+1)); done"], "curl x"),
    (["sh", "-c", "case $I in 0) cat /etc/cfg;; *) python run.py;; esac"], "python run.py"),
    (["sh", "-c", "for f in $(ls); do echo $f; done"], "for f in $(ls)"),
    (["bash", "-x", "run.sh"], "bash -x run.sh"),
    (["sleep", "soon"], "sleep soon"),
])
def test_unmodelled_command(argv: list[str], found: str | None) -> None:
    assert unmodelled_command(argv) == found


def test_warnings_name_each_container_by_its_path() -> None:
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "spec": {"replicatedJobs": [
        {"name": "a", "template": {"spec": {"template": {"spec": {"containers": [
            {"name": "ok", "command": ["sleep", "5"]},
            {"name": "py", "command": ["python3", "-c", "import torch"]}]}}}}},
        {"name": "b", "template": {"spec": {"template": {"spec": {
            "initContainers": [{"name": "i", "command": ["md5sum"], "args": ["/input/data.txt"]}],
            "containers": [{"name": "image-default"}]}}}}}]}}
    assert unmodelled_warnings(jobset) == [
        "spec.replicatedJobs[0].template.spec.template.spec.containers[1]: kbatch does not run "
        "\"python3 -c import torch\"; the simulated container runs the default duration (1s) "
        "and exits 0 (docs/simulation.md)",
        'spec.replicatedJobs[1].template.spec.template.spec.initContainers[0]: kbatch does not run '
        '"md5sum /input/data.txt"; the simulated container runs the default duration (1s) and exits 0 '
        "(docs/simulation.md)"]
    long = {"spec": {"containers": [{"command": ["perl", "-e", "x" * 100]}]}}
    assert '"perl -e ' + "x" * 51 + '…"' in unmodelled_warnings(long)[0]  # 60 characters
