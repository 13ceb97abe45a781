"""``--kueue-config`` with a misspelt field or a value of another Go type, as separate processes.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` ``fromFile`` (``serializer.EnableStrict``:
a field ``ControllerWebhook`` or ``MultiKueue``'s ``ExecConfig`` does not declare is ``strict decoding
error: unknown field "<path>"``). The command fails with one ``error: --kueue-config`` message and no
traceback, and nothing is recorded; the same file spelt right is recorded.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.processes import kbatch_ok, kbatch_process

FILE = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
webhook:
  {port}: 9443
leaderElection:
  leaderElect: true
  leaseDuration: 15s
multiKueue:
  clusterProfile:
    accessProviders:
    - name: p
      execConfig: {{command: /bin/creds, apiVersion: client.authentication.k8s.io/v1, {mode}: Never}}
"""


def test_a_misspelt_field_in_a_manager_section_fails_the_command_cleanly(tmp_path: Path) -> None:
    state, config = tmp_path / "state", tmp_path / "kueue.yaml"
    config.write_text(FILE.format(port="portt", mode="interactivMode"))
    res = kbatch_process(state, "--kueue-config", str(config), "nodes", "add")
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("error: --kueue-config"), res.stderr
    assert ('strict decoding error: unknown field '
            '"multiKueue.clusterProfile.accessProviders[0].execConfig.interactivMode", '
            'unknown field "webhook.portt"') in res.stderr, res.stderr
    assert "kueue configuration: the shipped default" in kbatch_ok(state, "controllers")
    config.write_text(FILE.format(port="port", mode="interactiveMode"))
    kbatch_ok(state, "--kueue-config", str(config), "nodes", "add")
    assert "as recorded in" in kbatch_ok(state, "controllers")


TYPED = """apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  blockAdmission: {block}
  requeuingStrategy:
    backoffLimitCount: 3
"""


def test_a_value_of_another_go_type_fails_the_command_cleanly(tmp_path: Path) -> None:
    """``blockAdmission: "true"`` is a string, no ``*bool``: Go's decoder refuses the file (``fromFile``)."""
    state, config = tmp_path / "state", tmp_path / "kueue.yaml"
    config.write_text(TYPED.format(block='"true"'))
    res = kbatch_process(state, "--kueue-config", str(config), "nodes", "add")
    assert res.returncode != 0 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith("error: --kueue-config"), res.stderr
    assert ("json: cannot unmarshal string into Go struct field WaitForPodsReady.waitForPodsReady."
            "blockAdmission of type bool") in res.stderr, res.stderr
    assert "kueue configuration: the shipped default" in kbatch_ok(state, "controllers")
    config.write_text(TYPED.format(block="true"))
    kbatch_ok(state, "--kueue-config", str(config), "nodes", "add")
    assert "as recorded in" in kbatch_ok(state, "controllers")
