"""``--scheduler-config`` with a bad value: one ``error:`` line in kube-scheduler's words (its
sigs.k8s.io/json decoding error), exit code 1, no traceback and no state written."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Kbatch


def test_the_cli_prints_one_error_line_without_a_traceback(kb: Kbatch, tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "percentageOfNodesToScore: abc\n")
    res = kb("--scheduler-config", str(config), "get", "pods")
    assert res.code == 1
    assert res.err == ("error: json: cannot unmarshal string into Go struct field "
                       "KubeSchedulerConfiguration.percentageOfNodesToScore of type int32\n")
    state = tmp_path / "state"
    assert not state.exists() or [p.name for p in state.iterdir()] == [".lock"]  # no image written
