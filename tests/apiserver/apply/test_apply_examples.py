"""Server-side apply, the documented cases (kubernetes.io/docs/reference/using-api/server-side-apply/;
KEP-555; k8s.io/apiserver ``pkg/endpoints/handlers/fieldmanager``)."""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.api.batch_v1 import Job
from kbatch.api.core_v1 import Pod
from kbatch.api.errors import BadRequest, Conflict, Invalid
from kbatch.api.frozen import edit
from kbatch.apiserver import APIServer
from kbatch.apiserver.apply.tracking import field_manager
from tests.apiserver.conftest import FakeClock


def job(**spec: Any) -> dict[str, Any]:
    base = {"parallelism": 2, "completions": 4, "suspend": True,
            "template": {"spec": {"restartPolicy": "Never",
                                  "containers": [{"name": "main", "image": "busybox"}]}}}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
            "spec": {**base, **spec}}


POD = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def managers(obj: Any) -> dict[tuple[str, str], dict[str, Any]]:
    return {(m.manager, m.operation): m.fields_v1 for m in obj.metadata.managed_fields or ()}


def test_apply_creates_and_records_fields_v1(api: APIServer) -> None:
    # docs "Field management": the applier owns exactly the fields of its configuration, in FieldsV1
    out = api.apply(job(), field_manager="alice")
    assert out.spec.parallelism == 2 and out.metadata.resource_version
    fields = managers(out)[("alice", "Apply")]
    containers = fields["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert containers == {'k:{"name":"main"}': {".": {}, "f:image": {}, "f:name": {}}}
    assert fields["f:spec"]["f:parallelism"] == {}
    assert "f:backoffLimit" not in fields["f:spec"]  # defaulted fields belong to nobody
    entry = out.metadata.managed_fields[0]
    assert (entry.api_version, entry.fields_type, entry.subresource) == ("batch/v1", "FieldsV1", None)


def test_reapply_changes_nothing(api: APIServer, clock: FakeClock) -> None:
    first = api.apply(job(), field_manager="alice")
    clock.advance(60)
    again = api.apply(job(), field_manager="alice")
    assert again.metadata.resource_version == first.metadata.resource_version
    assert again.metadata.managed_fields == first.metadata.managed_fields  # time kept too


def test_conflict_with_another_applier(api: APIServer) -> None:
    # docs "Conflicts": a different value for a field another manager owns is a 409
    api.apply(job(), field_manager="alice")
    with pytest.raises(Conflict) as err:
        api.apply(job(parallelism=3), field_manager="bob")
    assert err.value.message == 'Apply failed with 1 conflict: conflict with "alice": .spec.parallelism'
    causes = err.value.details.causes
    assert [(c.reason, c.field, c.message) for c in causes] == [
        ("FieldManagerConflict", ".spec.parallelism", 'conflict with "alice"')]
    assert api.get(Job, "j", "default").spec.parallelism == 2  # nothing written


def test_several_conflicts_message(api: APIServer) -> None:
    api.apply(job(), field_manager="alice")
    with pytest.raises(Conflict) as err:
        api.apply(job(parallelism=3, completions=5), field_manager="bob")
    assert err.value.message == ('Apply failed with 2 conflicts: conflicts with "alice":\n'
                                 "- .spec.completions\n- .spec.parallelism")


def test_equal_values_are_co_owned(api: APIServer) -> None:
    # docs "Conflicts": applying the same value is no conflict; both managers own the field
    api.apply(job(), field_manager="alice")
    out = api.apply(job(), field_manager="bob")
    owned = managers(out)
    assert "f:parallelism" in owned[("alice", "Apply")]["f:spec"]
    assert "f:parallelism" in owned[("bob", "Apply")]["f:spec"]


def test_force_takes_ownership(api: APIServer) -> None:
    api.apply(job(), field_manager="alice")
    out = api.apply(job(parallelism=3), field_manager="bob", force=True)
    assert out.spec.parallelism == 3
    owned = managers(out)
    assert "f:parallelism" not in owned[("alice", "Apply")]["f:spec"]
    assert "f:parallelism" in owned[("bob", "Apply")]["f:spec"]


def test_dropped_field_is_removed_unless_co_owned(api: APIServer) -> None:
    # docs "Merge strategy": a field removed from a manager's config goes, unless another manager owns it
    labelled = job()
    labelled["metadata"]["labels"] = {"team": "a", "tier": "x"}
    api.apply(labelled, field_manager="alice")
    other = job()
    other["metadata"]["labels"] = {"tier": "x"}
    api.apply(other, field_manager="bob")
    out = api.apply(job(), field_manager="alice")  # alice drops both labels
    assert out.metadata.labels == {"tier": "x"}


def service(*ports: int) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"},
            "spec": {"ports": [{"port": p, "name": f"p{p}"} for p in ports]}}


def test_associative_list_items_by_key(api: APIServer) -> None:
    # Service ports are a list-map keyed by port and protocol (protocol defaulting to TCP): each
    # manager's items merge, and dropping one's own item removes it
    from kbatch.api.core_v1 import Service

    out = api.apply(service(80), field_manager="alice")
    key = 'k:{"port":80,"protocol":"TCP"}'
    assert key in managers(out)[("alice", "Apply")]["f:spec"]["f:ports"]
    out = api.apply(service(443), field_manager="bob")
    assert [p.port for p in out.spec.ports] == [80, 443]
    out = api.apply(service(), field_manager="bob")
    assert [p.port for p in api.get(Service, "s", "default").spec.ports] == [80]


def test_finalizers_are_a_set(api: APIServer) -> None:
    first = job()
    first["metadata"]["finalizers"] = ["example.com/a"]
    out = api.apply(first, field_manager="alice")
    assert managers(out)[("alice", "Apply")]["f:metadata"]["f:finalizers"] == {'v:"example.com/a"': {}}
    second = {**job(), "metadata": {"name": "j", "finalizers": ["example.com/b"]}}
    out = api.apply(second, field_manager="bob")
    assert out.metadata.finalizers == ["example.com/a", "example.com/b"]
    out = api.apply(job(), field_manager="alice")
    assert out.metadata.finalizers == ["example.com/b"]


def test_atomic_list_is_replaced_and_conflicts_whole(api: APIServer) -> None:
    cmd = job()
    cmd["spec"]["template"]["spec"]["containers"][0]["command"] = ["sh", "-c", "true"]
    api.apply(cmd, field_manager="alice")
    cmd["spec"]["template"]["spec"]["containers"][0]["command"] = ["sh"]
    with pytest.raises(Conflict) as err:
        api.apply(cmd, field_manager="bob")
    assert err.value.details.causes[0].field == '.spec.template.spec.containers[name="main"].command'


def test_first_apply_to_an_untracked_object_conflicts_with_before_first_apply(api: APIServer) -> None:
    # fieldmanager skipnonapplied: fields of an object with no managedFields are "before-first-apply"'s
    api.create(Job.model_validate(job()))
    assert api.get(Job, "j", "default").metadata.managed_fields is None
    with pytest.raises(Conflict) as err:
        api.apply(job(parallelism=5), field_manager="alice")
    assert 'conflict with "before-first-apply" using batch/v1' in err.value.message
    out = api.apply(job(), field_manager="alice")  # same values: fine
    assert ("before-first-apply", "Update") in managers(out)


def test_update_after_apply_is_tracked_and_conflicts(api: APIServer) -> None:
    # an object carrying managedFields has its ordinary writes recorded as Update managers
    api.apply(job(), field_manager="alice")
    with field_manager("scaler"):
        out = api.patch(Job, "j", {"spec": {"parallelism": 1}}, "default")
    owned = managers(out)
    assert owned[("scaler", "Update")] == {"f:spec": {"f:parallelism": {}}}
    assert "f:parallelism" not in owned[("alice", "Apply")]["f:spec"]  # an update takes ownership
    assert out.metadata.managed_fields[-1].time is not None
    alice_again = job()
    alice_again["spec"]["parallelism"] = 2
    with pytest.raises(Conflict) as err:
        api.apply(alice_again, field_manager="alice")
    assert err.value.message == ('Apply failed with 1 conflict: conflict with "scaler" using batch/v1: '
                                 ".spec.parallelism")


def test_untracked_writes_record_nothing(api: APIServer) -> None:
    # the deliberate difference: in-process writes to objects without managedFields are not tracked
    pod = Pod.model_validate(POD)
    created = edit(api.create(pod))
    created.metadata.labels = {"a": "b"}
    assert api.update(created).metadata.managed_fields is None


def test_named_manager_tracks_a_create(api: APIServer) -> None:
    pod = Pod.model_validate(POD)
    with field_manager("kubectl-create"):
        out = api.create(pod)
    fields = managers(out)[("kubectl-create", "Update")]
    assert fields["f:spec"]["f:containers"]['k:{"name":"c"}']["f:image"] == {}


def test_empty_entry_resets_managed_fields(api: APIServer) -> None:
    from kbatch.api.meta import ManagedFieldsEntry

    out = edit(api.apply(job(), field_manager="alice"))
    out.metadata.managed_fields = [ManagedFieldsEntry()]
    assert api.update(out).metadata.managed_fields is None


def test_status_subresource_apply(api: APIServer) -> None:
    api.apply(job(), field_manager="alice")
    status = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
              "status": {"active": 1}, "spec": {"parallelism": 9}}
    out = api.apply(status, field_manager="ctl", status=True)
    assert out.status.active == 1 and out.spec.parallelism == 2
    entry = next(m for m in out.metadata.managed_fields if m.manager == "ctl")
    assert (entry.subresource, entry.fields_v1) == ("status", {"f:status": {"f:active": {}}})


def test_field_manager_required(api: APIServer) -> None:
    # apimachinery ValidatePatchOptions
    with pytest.raises(Invalid) as err:
        api.apply(job(), field_manager="")
    assert err.value.message == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: '
                                 "is required for apply patch")


@pytest.mark.parametrize(("change", "text"), [
    ({"metadata": {"name": "j", "managedFields": [{"manager": "x"}]}}, "metadata.managedFields must be nil"),
    ({"apiVersion": "batch/v2"}, "does not match the expected API version"),
])
def test_bad_configurations(api: APIServer, change: dict[str, Any], text: str) -> None:
    with pytest.raises(BadRequest) as err:
        api.apply({**job(), **change}, field_manager="alice", model=Job)
    assert text in err.value.message


def test_invalid_result_writes_nothing(api: APIServer) -> None:
    with pytest.raises(Invalid):
        api.apply(job(parallelism=-1), field_manager="alice")
    assert api.list(Job).items == []


def test_typed_client_apply(api: APIServer) -> None:
    from kbatch.apiserver.client import Applier

    client = api.client()
    assert isinstance(client, Applier)
    out = client.apply(Job.model_validate(job()), field_manager="alice")
    assert ("alice", "Apply") in managers(out)
    status = Job.model_validate({**job(), "status": {"active": 1}})
    assert client.apply_status(status, field_manager="ctl").status.active == 1


def test_list_types_follow_the_kind() -> None:
    # k8s.io/api: Pod status.conditions is +listType=map keyed by type, Job status.conditions is atomic
    from kbatch.apiserver.apply.fieldset import members

    doc = {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    assert set(members(doc, kind="Job.batch")) == {("f:status", "f:conditions")}
    assert ("f:status", "f:conditions", 'k:{"type":"Ready"}') in members(doc, kind="Pod")


def test_typed_apply_claims_only_the_fields_set(api: APIServer) -> None:
    from kbatch.api.core_v1 import PodSpec
    from kbatch.api.meta import ObjectMeta

    pod = Pod(metadata=ObjectMeta(name="p", labels={"a": "b"}),
              spec=PodSpec.model_validate({"containers": [{"name": "c", "image": "i"}]}))
    out = api.apply(pod, field_manager="alice")
    fields = managers(out)[("alice", "Apply")]
    assert set(fields) == {"f:metadata", "f:spec"}
    assert set(fields["f:spec"]) == {"f:containers"}


def test_creator_owns_defaults_but_not_admission_additions(api: APIServer) -> None:
    # handlers/create.go records the manager before mutating admission: DefaultTolerationSeconds'
    # tolerations belong to nobody, the defaulted restartPolicy to the creator
    with field_manager("kubectl-create"):
        out = api.create(Pod.model_validate(POD))
    assert out.spec.tolerations  # added by admission
    spec = managers(out)[("kubectl-create", "Update")]["f:spec"]
    assert "f:tolerations" not in spec and "f:restartPolicy" in spec


def test_client_side_to_server_side_apply_upgrade(api: APIServer) -> None:
    # lastappliedmanager.go: "kubectl" may take fields whose last-applied value is still live
    import json

    from kbatch.apiserver.client_apply import with_last_applied

    manifest = with_last_applied(job())
    with field_manager("kubectl-client-side-apply"):
        api.create(Job.model_validate(manifest))
    with pytest.raises(Conflict):
        api.apply(job(parallelism=3), field_manager="ops")
    out = api.apply(job(parallelism=3), field_manager="kubectl")
    assert out.spec.parallelism == 3
    assert json.loads(out.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"])


def test_update_managers_are_capped(api: APIServer, clock: FakeClock) -> None:
    # capmanagers.go: at most 10 Update managers, the oldest merged into "ancient-changes"
    api.apply(job(), field_manager="alice")
    for i in range(12):
        clock.advance(1)
        with field_manager(f"writer-{i:02d}"):
            out = api.patch(Job, "j", {"metadata": {"labels": {f"l{i}": "x"}}}, "default")
    updates = [m for m in out.metadata.managed_fields if m.operation == "Update"]
    assert len(updates) == 10
    names = [m.manager for m in updates]
    assert "ancient-changes" in names and "writer-11" in names and "writer-00" not in names
    ancient = next(m for m in updates if m.manager == "ancient-changes")
    assert set(ancient.fields_v1["f:metadata"]["f:labels"]) == {"f:l0", "f:l1", "f:l2"}


def test_resource_version_in_the_configuration_is_a_precondition(api: APIServer) -> None:
    first = api.apply(job(), field_manager="alice")
    stale = job(parallelism=3)
    stale["metadata"]["resourceVersion"] = str(int(first.metadata.resource_version) - 1)
    with pytest.raises(Conflict) as err:
        api.apply(stale, field_manager="alice")
    assert "the object has been modified" in err.value.message
    stale["metadata"]["resourceVersion"] = first.metadata.resource_version
    assert api.apply(stale, field_manager="alice").spec.parallelism == 3


def test_dry_run_apply_writes_nothing(api: APIServer) -> None:
    out = api.apply(job(), field_manager="alice", dry_run=True)
    assert out.metadata.managed_fields and api.list(Job).items == []
