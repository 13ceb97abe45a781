"""``kbatch label`` and ``kbatch annotate`` on a state directory, as kubectl's (k8s.io/kubectl
v0.37.0-beta.0 ``pkg/cmd/label/label.go``, ``pkg/cmd/annotate/annotate.go``); the same command lines
against the real kubectl are in tests/server/test_kubectl_label.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.cli.errors import UserError
from kbatch.cli.pairs import Edit, annotation_edit, apply_annotations, apply_labels, label_edit, split_args
from tests.cli.conftest import Kbatch
from tests.cli.runners import CliProcesses


def _job(name: str, labels: dict[str, str]) -> dict:  # type: ignore[type-arg]
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": labels},
            "spec": {"suspend": True, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}}


def test_labels_and_annotations_persist_across_separate_processes(tmp_path: Path) -> None:
    """Each command a separate process on one state directory: what one writes, the next reads."""
    run = CliProcesses(tmp_path / "state").run
    (tmp_path / "jobs.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [
        _job("a", {"team": "x"}), _job("b", {"team": "y"})]}))
    assert run("create", "-f", str(tmp_path / "jobs.json")).code == 0
    assert run("label", "job", "a", "b", "tier=gold").out == "job.batch/a labeled\njob.batch/b labeled\n"
    assert run("label", "jobs", "-l", "team=x", "team-").out == "job.batch/a unlabeled\n"
    assert run("annotate", "jobs", "--all", "owner=me").out == ("job.batch/a annotated\n"
                                                                "job.batch/b annotated\n")
    assert run("label", "job/b", "q=1", "--dry-run=client").out == "job.batch/b labeled (dry run)\n"
    refused = run("label", "job/b", "tier=silver")
    assert (refused.code, refused.err) == (1, "error: 'tier' already has a value (gold), and --overwrite "
                                              "is false\n")
    assert run("label", "jobs", "--all", "--list").out == ("Listing labels for Job.batch/a:\n tier=gold\n"
                                                           "Listing labels for Job.batch/b:\n team=y\n"
                                                           " tier=gold\n")
    assert run("annotate", "job", "b", "--list").out == "owner=me\n"
    got = json.loads(run("get", "jobs", "-o", "json").out)["items"]
    assert [(j["metadata"]["labels"], j["metadata"]["annotations"]) for j in got] == [
        ({"tier": "gold"}, {"owner": "me"}), ({"team": "y", "tier": "gold"}, {"owner": "me"})]


def test_resource_version_is_sent_and_checked(kb: Kbatch, tmp_path: Path) -> None:
    """``--resource-version`` puts ``metadata.resourceVersion`` in the merge patch: a stale one is a
    Conflict, the current one succeeds; it refuses several objects."""
    (tmp_path / "a.json").write_text(json.dumps(_job("a", {})))
    kb.ok("create", "-f", str(tmp_path / "a.json"))
    rv = json.loads(kb.ok("get", "job", "a", "-o", "json"))["metadata"]["resourceVersion"]
    stale = kb("label", "job", "a", "x=1", "--resource-version", str(int(rv) - 1))
    assert stale.code == 1 and stale.err.startswith("Error from server (Conflict): Operation cannot be "
                                                    'fulfilled on jobs.batch "a"')
    assert kb.ok("label", "job", "a", "x=1", "--resource-version", rv) == "job.batch/a labeled\n"
    several = kb("label", "jobs", "--all", "y=1", "--resource-version", rv)
    assert (several.code, several.err) == (1, "error: --resource-version may only be used with a single "
                                              "resource\n")


def test_bad_input_is_refused_before_anything_is_written(kb: Kbatch, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps(_job("a", {"k": "v"})))
    kb.ok("create", "-f", str(tmp_path / "a.json"))
    for args, err in [
        (("label", "job", "a", "x=a b"), 'error: invalid label value: "x=a b": a valid label must be an '
                                         "empty string or consist of alphanumeric characters"),
        (("label", "job", "a", "x=1", "x-"), "error: can not both modify and remove a label in the same "
                                             "command"),
        (("label", "job", "a"), "error: at least one label update is required"),
        (("annotate", "job", "a"), "error: at least one annotation update is required"),
        (("label", "jobs", "--all", "-l", "k=v", "q=1"), "error: cannot set --all and --selector at the "
                                                         "same time"),
        (("label", "job", "a", "--list", "-o", "yaml"), "error: --list and --output may not be specified "
                                                        "together"),
        (("label", "job", "a", "k=w"), "error: 'k' already has a value (v), and --overwrite is false"),
        (("label", "job", "a", "bad key=1"), 'The Job "a" is invalid: metadata.labels: Invalid value: '
                                             '"bad key"'),
    ]:
        res = kb(*args)
        assert res.code == 1 and res.err.startswith(err) and "Traceback" not in res.err, args
    assert json.loads(kb.ok("get", "job", "a", "-o", "json"))["metadata"]["labels"] == {"k": "v"}


def test_pairs_follow_kubectls_split_and_parse() -> None:
    assert split_args(["job", "a", "x=1", "y-"], "label") == (["job", "a"], ["x=1", "y-"])
    with pytest.raises(UserError, match="all resources must be specified before label changes: b"):
        split_args(["job", "x=1", "b"], "label")
    assert label_edit(["a=1", "b-"]) == Edit({"a": "1"}, ("b",))
    with pytest.raises(UserError, match="invalid label spec: a=b=c"):
        label_edit(["a=b=c"])
    assert annotation_edit(["a=b=c"]) == Edit({"a": "b=c"}, ())  # an annotation value may hold "="
    with pytest.raises(UserError, match="invalid annotation format: x"):
        annotation_edit(["x"])


KEYS = st.sampled_from(["a", "b", "c", "d"])
MAPS = st.dictionaries(KEYS, st.sampled_from(["1", "2"]))


@given(MAPS, MAPS, st.lists(KEYS, unique=True), st.booleans())
def test_label_edit_sets_removes_and_names_the_change(current: dict[str, str], new: dict[str, str],
                                                      remove: list[str], overwrite: bool) -> None:
    remove = [k for k in remove if k not in new]
    clash = any(k in current and current[k] != v for k, v in new.items())
    if clash and not overwrite:
        with pytest.raises(UserError, match="--overwrite is false"):
            apply_labels(current, Edit(new, tuple(remove)), overwrite)
        return
    out, word = apply_labels(current, Edit(new, tuple(remove)), overwrite)
    assert all(out[k] == v for k, v in new.items()) and not set(remove) & set(out)
    assert set(out) - set(new) <= set(current)
    added = any(current.get(k) != v for k, v in new.items())
    removed = any(k in current for k in remove)
    assert word == {(True, True): "modified", (True, False): "labeled", (False, True): "unlabeled",
                    (False, False): "not labeled"}[(added, removed)]
    assert apply_annotations(current, Edit(new, tuple(remove)), True) == out


def _managers(obj: dict) -> dict[str, list[str]]:  # type: ignore[type-arg]
    """Each manager's owned metadata keys: ``{"kbatch-label": ["f:labels"], ...}``."""
    out: dict[str, list[str]] = {}
    for entry in obj["metadata"].get("managedFields") or []:
        out[entry["manager"]] = sorted(entry["fieldsV1"].get("f:metadata", {}))
    return out


def test_the_change_is_recorded_under_the_field_manager(kb: Kbatch, tmp_path: Path) -> None:
    """kubectl records ``label``/``annotate`` under ``--field-manager`` (default ``kubectl-label``,
    ``kubectl-annotate``: ``pkg/cmd/label/label.go`` ``fieldManager``); kbatch's defaults are
    ``kbatch-label`` and ``kbatch-annotate``, and a server-side dry run records nothing."""
    (tmp_path / "a.json").write_text(json.dumps(_job("a", {})))
    kb.ok("create", "-f", str(tmp_path / "a.json"))
    kb.ok("label", "job", "a", "tier=gold")
    kb.ok("annotate", "job", "a", "note=x", "--field-manager", "ops")
    kb.ok("label", "job", "a", "dry=1", "--dry-run=server", "--field-manager", "dry")
    got = json.loads(kb.ok("get", "job", "a", "-o", "json", "--show-managed-fields"))
    managers = _managers(got)  # besides kbatch-create's (the create) and the job controller's status
    assert (managers["kbatch-label"], managers["ops"]) == (["f:labels"], ["f:annotations"])
    assert "dry" not in managers
    assert {e["operation"] for e in got["metadata"]["managedFields"]} == {"Update"}
