"""Properties of the job webhooks' prebuilt-workload checks
(:mod:`kbatch.controllers.kueue.jobframework.prebuilt`, kueue v0.19.2
``pkg/controller/jobframework/validation.go``): the path an error names is where the name is read
from, and a running job's update is refused exactly when the Workload it names changes."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.core_v1 import Pod
from kbatch.api.validation import is_dns1123_subdomain
from kbatch.controllers.kueue.jobframework import prebuilt

KEY = prebuilt.PREBUILT_ANNOTATION
_names = st.one_of(st.none(), st.sampled_from(["", "a", "wl-1", "Wl_1", "a b", "x" * 64, "Long" + "y" * 60]))


def _pod(label: str | None, annotation: str | None) -> Pod:
    meta: dict[str, dict[str, str]] = {"labels": {}, "annotations": {}}
    if label is not None:
        meta["labels"][KEY] = label
    if annotation is not None:
        meta["annotations"][KEY] = annotation
    return Pod.from_dict({"metadata": {"name": "p", **meta}})


@given(_names, _names, st.booleans())
def test_an_error_names_the_field_the_name_is_read_from(label: str | None, annotation: str | None,
                                                        ids: bool) -> None:
    obj = _pod(label, annotation)
    errs = prebuilt.name_errors(obj, ids)
    path = prebuilt.prebuilt_path(obj, ids)
    read = (obj.metadata.annotations or {}).get(KEY) if path.startswith("metadata.annotations") else label
    assert [e.field for e in errs] == ([path] if read is not None and is_dns1123_subdomain(read) else [])


@given(_names, _names, _names, _names, st.booleans())
def test_a_running_job_is_refused_exactly_when_its_workload_changes(
    old_label: str | None, old_annotation: str | None, new_label: str | None, new_annotation: str | None,
    ids: bool,
) -> None:
    old, new = _pod(old_label, old_annotation), _pod(new_label, new_annotation)
    errs = prebuilt.update_errors(old, new, suspended=False, elastic=False, identifier_annotations=ids)
    changed = prebuilt.prebuilt_name(old, ids) != prebuilt.prebuilt_name(new, ids)
    assert bool(errs) == changed
    assert all(e.detail == "field is immutable" and e.field == prebuilt.prebuilt_path(new, ids) for e in errs)
