"""List: selectors, namespaces, pagination at one revision, resourceVersion semantics, Expired."""

from __future__ import annotations

import base64
import json

import pytest

from kbatch.api.errors import BadRequest, Expired, Invalid, Timeout
from kbatch.api.frozen import FrozenObjectError, edit
from kbatch.apiserver import APIServer
from tests.apiserver.kinds import Namespace, Pod, Widget


def fill(server: APIServer, n: int = 10, namespace: str = "default") -> None:
    for i in range(n):
        labels = {"parity": "even" if i % 2 == 0 else "odd"}
        server.create(Widget.model_validate({"metadata": {"name": f"w{i:02d}", "namespace": namespace,
                                                          "labels": labels}}))


def test_list_returns_list_kind_and_revision(server: APIServer) -> None:
    fill(server, 3)
    out = server.list(Widget, "default")
    assert out.kind == "WidgetList" and out.api_version == "v1"
    assert [w.name for w in out.items] == ["w00", "w01", "w02"]
    assert out.metadata.resource_version == str(server.store.revision)
    assert all(w.metadata.resource_version for w in out.items)


def test_list_all_namespaces_and_one_namespace(server: APIServer) -> None:
    server.create(Namespace.model_validate({"metadata": {"name": "other"}}))
    fill(server, 2)
    fill(server, 2, "other")
    assert len(server.list(Widget).items) == 4
    assert [w.namespace for w in server.list(Widget, "other").items] == ["other", "other"]


def test_label_and_field_selectors(server: APIServer) -> None:
    fill(server, 6)
    assert [w.name for w in server.list(Widget, label_selector="parity=odd").items] == ["w01", "w03", "w05"]
    assert [w.name for w in server.list(Widget, field_selector="metadata.name=w02").items] == ["w02"]
    both = server.list(Widget, label_selector="parity in (even)", field_selector="metadata.name!=w00")
    assert [w.name for w in both.items] == ["w02", "w04"]


def test_pod_field_selectors(server: APIServer) -> None:
    server.create(Pod.model_validate({"metadata": {"name": "a", "namespace": "default"},
                                      "spec": {"nodeName": "n1"}}))
    server.create(Pod.model_validate({"metadata": {"name": "b", "namespace": "default"}, "spec": {}}))
    assert [p.name for p in server.list(Pod, field_selector="spec.nodeName=n1").items] == ["a"]
    assert [p.name for p in server.list(Pod, field_selector="spec.nodeName=").items] == ["b"]


def test_unsupported_field_selector_is_bad_request(server: APIServer) -> None:
    # a built-in-group kind without its own conversion: runtime.DefaultMetaV1FieldSelectorConversion
    with pytest.raises(BadRequest, match=r'"spec\.size" is not a known field selector'):
        server.list(Widget, field_selector="spec.size=1")


def test_bad_label_selector_is_bad_request(server: APIServer) -> None:
    with pytest.raises(BadRequest, match="unable to parse requirement"):
        server.list(Widget, label_selector="a in b")


def test_pagination_reads_one_revision(server: APIServer) -> None:
    fill(server, 10)
    page = server.list(Widget, "default", limit=4)
    assert [w.name for w in page.items] == ["w00", "w01", "w02", "w03"]
    token = page.metadata.continue_
    first_rv = page.metadata.resource_version
    assert token
    server.create(Widget.model_validate({"metadata": {"name": "w05a", "namespace": "default"}}))
    server.delete(Widget, "w08", "default")
    names = [w.name for w in page.items]
    while token:
        page = server.list(Widget, "default", limit=4, continue_=token)
        assert page.metadata.resource_version == first_rv
        names += [w.name for w in page.items]
        token = page.metadata.continue_
    assert names == [f"w{i:02d}" for i in range(10)]


def test_pagination_with_selector_fills_pages(server: APIServer) -> None:
    fill(server, 10)
    page = server.list(Widget, label_selector="parity=odd", limit=2)
    names = [w.name for w in page.items]
    while page.metadata.continue_:
        page = server.list(Widget, label_selector="parity=odd", limit=2, continue_=page.metadata.continue_)
        names += [w.name for w in page.items]
    assert names == ["w01", "w03", "w05", "w07", "w09"]


def test_continue_token_below_compaction_is_expired(server: APIServer) -> None:
    fill(server, 4)
    page = server.list(Widget, limit=2)
    fill(server, 2, "kube-system")
    server.store.compact(server.store.revision)
    with pytest.raises(Expired, match="The provided continue parameter is too old"):
        server.list(Widget, limit=2, continue_=page.metadata.continue_)


def test_continue_with_resource_version_is_bad_request(server: APIServer) -> None:
    fill(server, 4)
    token = server.list(Widget, limit=2).metadata.continue_
    with pytest.raises(BadRequest, match="specifying resource version is not allowed when using continue"):
        server.list(Widget, limit=2, continue_=token, resource_version="3")
    with pytest.raises(BadRequest, match="continue key is not valid"):
        server.list(Widget, continue_="garbage!")


def _token(**fields: object) -> str:
    raw = json.dumps(fields, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


_INVALID = "invalid continue token: continue key is not valid"


# upstream: storage.DecodeContinue (staging/src/k8s.io/apiserver/pkg/storage/continue.go) and the
# etcd3 store's "invalid continue token: %v" BadRequest around it
@pytest.mark.parametrize(("token", "message"), [
    (_token(v="v2", rv=3, start="a"), f"{_INVALID}: server does not recognize this encoded version v2"),
    (_token(v="meta.k8s.io/v1", rv=0, start="a"),
     f"{_INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (_token(v="meta.k8s.io/v1", start="a"),
     f"{_INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"),
    (_token(v="meta.k8s.io/v1", rv=3, start=""),
     f"{_INVALID}: encoded start key empty (version meta.k8s.io/v1)"),
    (_token(v="meta.k8s.io/v1", rv=3, start="../kube-system/x"), f"{_INVALID}: ../kube-system/x"),
    (_token(v="meta.k8s.io/v1", rv=3, start="default//x"), f"{_INVALID}: default//x"),
    (_token(v="meta.k8s.io/v1", rv=3, start="default/./x"), f"{_INVALID}: default/./x"),
])
def test_a_malformed_continue_token_is_refused_with_upstreams_words(server: APIServer, token: str,
                                                                     message: str) -> None:
    fill(server, 2)
    with pytest.raises(BadRequest) as err:
        server.list(Widget, continue_=token)
    assert err.value.status.message == message


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


_V = '"v":"meta.k8s.io/v1"'


# encoding/json's Unmarshal into continueToken{v string, rv int64, start string}: the first value of
# the wrong type in the document is the error (UnmarshalTypeError), a number naming its literal only
# where the field is a number (literalStore); keys match the fields case-insensitively
@pytest.mark.parametrize(("text", "cause"), [
    (f'{{{_V},"rv":1.5,"start":"a"}}', "number 1.5 into Go struct field continueToken.rv of type int64"),
    (f'{{{_V},"rv":3.0,"start":"a"}}', "number 3.0 into Go struct field continueToken.rv of type int64"),
    (f'{{{_V},"rv":1e2,"start":"a"}}', "number 1e2 into Go struct field continueToken.rv of type int64"),
    (f'{{{_V},"rv":9223372036854775808,"start":"a"}}',
     "number 9223372036854775808 into Go struct field continueToken.rv of type int64"),
    ('{"v":1.5,"rv":3,"start":"a"}', "number into Go struct field continueToken.v of type string"),
    ('{"start":5,"v":true}', "number into Go struct field continueToken.start of type string"),
    (f'{{{_V},"rv":"3","start":"a"}}', "string into Go struct field continueToken.rv of type int64"),
    ('{"V":true}', "bool into Go struct field continueToken.v of type string"),
])
def test_a_continue_token_field_of_the_wrong_type_is_refused_in_gos_words(server: APIServer, text: str,
                                                                         cause: str) -> None:
    with pytest.raises(BadRequest) as err:
        server.list(Widget, continue_=_raw(text))
    assert err.value.status.message == f"{_INVALID}: json: cannot unmarshal {cause}"


def test_continue_token_keys_match_its_fields_in_any_case(server: APIServer) -> None:
    fill(server, 4)
    page = server.list(Widget, "default", limit=2)
    decoded = json.loads(base64.urlsafe_b64decode(page.metadata.continue_ + "=="))
    shouted = _raw(json.dumps({"V": decoded["v"], "Rv": decoded["rv"], "START": decoded["start"]}))
    rest = server.list(Widget, "default", continue_=shouted)
    assert len(rest.items) == 2


@pytest.mark.parametrize("token", ["garbage!", "Z2FyYmFnZQ", _token(rv=1)[:-2] + "!!"])
def test_an_undecodable_continue_token_names_the_cause_after_upstreams_prefix(server: APIServer,
                                                                             token: str) -> None:
    with pytest.raises(BadRequest) as err:
        server.list(Widget, continue_=token)
    message = err.value.status.message
    assert message.startswith(f"{_INVALID}: ") and "codec" not in message


def test_a_continue_token_whose_start_is_rooted_is_read_below_the_prefix(server: APIServer) -> None:
    fill(server, 4)
    page = server.list(Widget, "default", limit=2)
    decoded = json.loads(base64.urlsafe_b64decode(page.metadata.continue_ + "=="))
    rooted = _token(v=decoded["v"], rv=decoded["rv"], start="/" + decoded["start"])
    rest = server.list(Widget, "default", continue_=rooted)
    assert [w.metadata.name for w in rest.items] == [w.metadata.name for w in
                                                     server.list(Widget, "default").items][2:]


def test_resource_version_semantics(server: APIServer) -> None:
    fill(server, 2)
    rev = server.store.revision
    server.create(Widget.model_validate({"metadata": {"name": "late", "namespace": "default"}}))
    assert len(server.list(Widget, resource_version="0").items) == 3
    assert len(server.list(Widget, resource_version=str(rev)).items) == 3  # not older than: latest
    exact = server.list(Widget, resource_version=str(rev), limit=10)  # paginated: exact
    assert len(exact.items) == 2 and exact.metadata.resource_version == str(rev)
    with pytest.raises(Timeout, match="Too large resource version"):
        server.list(Widget, resource_version=str(rev + 100))
    server.store.compact(server.store.revision)
    with pytest.raises(Expired, match=r"^The resourceVersion for the provided list is too old\.$"):
        server.list(Widget, resource_version=str(rev), limit=10)  # etcd3 store's words


def test_listed_objects_are_the_shared_read_only_ones(server: APIServer) -> None:
    fill(server, 1)
    first = server.list(Widget, label_selector="parity=even").items[0]
    assert first is server.list(Widget).items[0] is server.get(Widget, first.name)
    with pytest.raises(FrozenObjectError):  # strict mode (the suite's)
        first.metadata.labels = {"parity": "odd"}
    changed = edit(first)
    changed.metadata.labels = {"parity": "odd"}
    assert server.list(Widget, label_selector="parity=even").items[0].metadata.labels == {"parity": "even"}


def test_remaining_item_count_counts_the_items_after_each_page(server: APIServer) -> None:
    """api-concepts "Retrieving large results sets in chunks": each page but the last says how many
    items follow it, at the list's revision (later writes do not change it)."""
    fill(server, 10)
    page = server.list(Widget, "default", limit=4)
    seen = [page.metadata.remaining_item_count]
    server.create(Widget.model_validate({"metadata": {"name": "w99", "namespace": "default"}}))
    while page.metadata.continue_:
        page = server.list(Widget, "default", limit=4, continue_=page.metadata.continue_)
        seen.append(page.metadata.remaining_item_count)
    assert seen == [6, 2, None]
    assert server.list(Widget, "default", limit=10).metadata.remaining_item_count == 1  # w99
    assert server.list(Widget, "default", limit=11).metadata.remaining_item_count is None


def test_remaining_item_count_is_unset_with_a_selector(server: APIServer) -> None:
    fill(server, 10)
    page = server.list(Widget, "default", label_selector="parity=odd", limit=2)
    assert page.metadata.continue_ and page.metadata.remaining_item_count is None
    assert server.list(Widget, "default", field_selector="metadata.name!=w00",
                       limit=2).metadata.remaining_item_count is None
    raw = server.unstructured.list("v1", "Widget", "default", limit=4)
    assert raw["metadata"]["remainingItemCount"] == 6


# resourceVersionMatch (api-concepts "resourceVersionMatch"; upstream ValidateListOptions)

@pytest.mark.parametrize(("rv", "match", "continue_", "message"), [
    (None, "Exact", None, "resourceVersionMatch is forbidden unless resourceVersion is provided"),
    (None, "NotOlderThan", None, "resourceVersionMatch is forbidden unless resourceVersion is provided"),
    ("0", "Exact", None, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
    ("1", "Newest", None, 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'),
    (None, "NotOlderThan", "token", "resourceVersionMatch is forbidden when continue is provided"),
])
def test_resource_version_match_validation(server: APIServer, rv: str | None, match: str,
                                           continue_: str | None, message: str) -> None:
    fill(server, 2)
    with pytest.raises(Invalid) as err:
        server.list(Widget, "default", resource_version=rv, resource_version_match=match, continue_=continue_)
    assert message in str(err.value)
    assert str(err.value).startswith('ListOptions.meta.k8s.io "" is invalid: ')
    assert err.value.status.code == 422
    assert all(c.field == "resourceVersionMatch" for c in err.value.status.details.causes)


def test_resource_version_match_exact_reads_that_revision(server: APIServer) -> None:
    fill(server, 3)
    rv = server.list(Widget, "default").metadata.resource_version
    server.delete(Widget, "w00", "default")
    exact = server.list(Widget, "default", resource_version=rv, resource_version_match="Exact")
    assert exact.metadata.resource_version == rv
    assert len(exact.items) == 3
    newer = server.list(Widget, "default", resource_version=rv, resource_version_match="NotOlderThan")
    assert int(newer.metadata.resource_version) > int(rv)
    assert len(newer.items) == 2
    # NotOlderThan "0" is the latest as well
    latest = server.list(Widget, "default", resource_version="0", resource_version_match="NotOlderThan")
    assert len(latest.items) == 2


def test_resource_version_match_exact_compacted_is_expired_and_future_times_out(server: APIServer) -> None:
    fill(server, 3)
    rv = server.list(Widget, "default").metadata.resource_version
    server.delete(Widget, "w00", "default")
    server.store.compact(server.store.revision)
    with pytest.raises(Expired):
        server.list(Widget, "default", resource_version=rv, resource_version_match="Exact")
    # not older than a compacted revision: the latest qualifies
    newer = server.list(Widget, "default", resource_version=rv, resource_version_match="NotOlderThan")
    assert len(newer.items) == 2
    with pytest.raises(Timeout):
        server.list(Widget, "default", resource_version=str(server.store.revision + 5),
                    resource_version_match="Exact")


def test_resource_version_match_not_older_than_with_limit_reads_the_latest(server: APIServer) -> None:
    fill(server, 3)
    rv = server.list(Widget, "default").metadata.resource_version
    server.delete(Widget, "w00", "default")
    page = server.list(Widget, "default", limit=10, resource_version=rv,
                       resource_version_match="NotOlderThan")
    assert len(page.items) == 2
    exact = server.list(Widget, "default", limit=10, resource_version=rv, resource_version_match="Exact")
    assert len(exact.items) == 3


@pytest.mark.parametrize("rv", [" 3", "3\n", "+3", "1_0", "٣", "18446744073709551616"])
def test_a_resource_version_is_read_as_go_parse_uint_reads_it(server: APIServer, rv: str) -> None:
    """``APIObjectVersioner.ParseResourceVersion``: ``strconv.ParseUint(rv, 10, 64)``."""
    fill(server, 1)
    with pytest.raises(BadRequest, match="resourceVersion must be an integer"):
        server.list(Widget, "default", resource_version=rv)
