"""A Job whose pods read a ConfigMap that does not exist yet, in separate ``kbatch`` processes over
one state directory (tests/cli/runners.py ``CliProcesses``): ``get pods`` shows
``CreateContainerConfigError`` (kubectl's STATUS column is the waiting reason), the ConfigMap is
applied, time advances past the kubelet's next try, and the Job completes. Secrets go the same way
through ``get secret`` / ``describe secret``.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.runners import CliProcesses

JOB = """apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        command: [sh, -c, "sleep 3"]
        env:
        - name: MODE
          valueFrom: {configMapKeyRef: {name: settings, key: mode}}
        volumeMounts: [{name: creds, mountPath: /creds}]
      volumes:
      - name: creds
        secret: {secretName: creds}
"""
SECRET = """apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {token: abc123}
"""
CONFIG = """apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
"""


def test_a_job_waits_for_its_config_map_across_commands(tmp_path: Path) -> None:
    cli = CliProcesses(tmp_path / "state")
    for name, text in (("job", JOB), ("secret", SECRET), ("config", CONFIG)):
        (tmp_path / f"{name}.yaml").write_text(text)
    assert cli.run("nodes", "add", "--count", "1").code == 0
    assert cli.run("apply", "-f", str(tmp_path / "secret.yaml")).code == 0
    assert cli.run("apply", "-f", str(tmp_path / "job.yaml")).code == 0
    pods = cli.run("get", "pods")
    assert pods.code == 0, pods.err
    assert pods.out.splitlines()[1].split()[2] == "CreateContainerConfigError"
    events = cli.run("get", "events")
    assert 'Error: configmap "settings" not found' in events.out
    assert cli.run("apply", "-f", str(tmp_path / "config.yaml")).code == 0
    assert cli.run("advance", "15s").code == 0
    jobs = cli.run("get", "jobs")
    assert jobs.out.splitlines()[1].split()[1] == "Complete", jobs.out
    secrets = cli.run("get", "secret", "creds")
    assert secrets.out.splitlines()[1].split()[:3] == ["creds", "Opaque", "1"]
    page = cli.run("describe", "secret", "creds").out
    assert "token:  6 bytes" in page and "abc123" not in page
