"""``--scheduler-config`` with a bad value: one ``error:`` line in kube-scheduler's words (its
sigs.k8s.io/json decoding error), exit code 1, no traceback and no state written."""

from __future__ import annotations

from pathlib import Path

import pytest

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


_HEAD = '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", '
_ARGS = ('"profiles": [{"pluginConfig": [{"name": "InterPodAffinity", '
         '"args": {"hardPodAffinityWeight": 1.0}}]}]}')


@pytest.mark.parametrize(("text", "error"), [
    # a JSON file's number keeps its literal: Go's int32 refuses 3.0 (YAML's 3.0 reaches it as 3)
    (_HEAD + '"percentageOfNodesToScore": 3.0}', "json: cannot unmarshal number 3.0 into Go struct field "
     "KubeSchedulerConfiguration.percentageOfNodesToScore of type int32"),
    (_HEAD + _ARGS, "decoding .profiles[0].pluginConfig[0]: decoding args for plugin InterPodAffinity: "
     "json: cannot unmarshal number 1.0 into Go struct field InterPodAffinityArgs.hardPodAffinityWeight "
     "of type int32"),
    # text opening with { is JSON to the recognizer (IsJSONBuffer), flow-style YAML or not
    (_HEAD + '"percentageOfNodesToScore": 3,}', "couldn't get version/kind; json parse error: "
     "invalid character '}' looking for beginning of object key string"),
])
def test_a_json_file_is_decoded_as_json(kb: Kbatch, tmp_path: Path, text: str, error: str) -> None:
    config = tmp_path / "sched.json"
    config.write_text(text)
    res = kb("--scheduler-config", str(config), "get", "pods")
    assert (res.code, res.err) == (1, f"error: {error}\n")


def test_a_yaml_files_whole_float_is_an_integer(kb: Kbatch, tmp_path: Path) -> None:
    config = tmp_path / "sched.yaml"
    config.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                      "percentageOfNodesToScore: 3.0\n")
    assert kb("--scheduler-config", str(config), "get", "pods").code == 0
