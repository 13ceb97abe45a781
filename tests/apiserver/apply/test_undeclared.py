"""Server-side apply's error for undeclared fields (:mod:`kbatch.apiserver.apply.undeclared`):
structured-merge-diff's paths (``fieldpath.Path.String``, ``typed.ValidationErrors``) and
``objectGVKNN`` (apimachinery ``managedfields/internal/structuredmerge.go``); end to end with kubectl in
``tests/server/test_kubectl_unknown_fields.py``."""

from __future__ import annotations

from pathlib import Path

from kbatch.apiserver.apply.undeclared import undeclared_fields


def test_undeclared_paths_key_associative_lists_and_index_atomic_ones() -> None:
    doc = {"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b", "x": 1}],
                                          "tolerations": [{"key": "k", "y": 1}]}}}}
    paths = ["spec.template.spec.tolerations[0].y", "spec.template.spec.containers[1].x"]
    err = undeclared_fields(doc, paths, kind="Job", group_kind="Job.batch", api_version="batch/v1", name="j",
                            namespace="ns")
    assert err.message == ('failed to create typed patch object (ns/j; batch/v1, Kind=Job): errors:\n'
                           '  .spec.template.spec.containers[name="b"].x: field not declared in schema\n'
                           '  .spec.template.spec.tolerations[0].y: field not declared in schema')
    one = undeclared_fields({"data": {}}, ["foo"], kind="ConfigMap", group_kind="ConfigMap",
                            api_version="v1", name="c", namespace="")
    assert one.message == "failed to create typed patch object (/c; /v1, Kind=ConfigMap): .foo: field not " \
                          "declared in schema"


def test_kbatch_apply_server_side_in_a_separate_process(tmp_path: Path) -> None:
    from tests.cli.processes import kbatch_process

    manifest = tmp_path / "job.yaml"
    manifest.write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  foo: 1\n"
                        "  template:\n    spec:\n      restartPolicy: Never\n"
                        "      containers: [{name: c, image: busybox}]\n")
    out = kbatch_process(tmp_path / "state", "apply", "--server-side", "-f", str(manifest), timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert ("failed to create typed patch object (default/j; batch/v1, Kind=Job): .spec.foo: field not "
            "declared in schema") in out.stderr + out.stdout
