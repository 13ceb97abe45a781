"""Pure conversions between ``kbatch.store.kv`` values and etcd v3's protobuf messages.

The request side takes arguments already checked by the store (``keyrange.key_range``,
``txn.prepare_branch``), so every conversion here is total. The mapping, from etcd's
``api/etcdserverpb/rpc.proto`` and ``api/mvccpb/kv.proto``:

* a range is ``(key, range_end)`` with etcd's own conventions, which the KV protocol shares: no
  ``range_end`` is the single key, ``b"\\0"`` every key from ``key`` on, otherwise ``[key, range_end)``;
* ``Compare`` targets ``version``/``create``/``mod``/``value`` are ``VERSION``/``CREATE``/``MOD``/
  ``VALUE``, ops ``=``/``!=``/``<``/``>`` are ``EQUAL``/``NOT_EQUAL``/``LESS``/``GREATER``;
* a response's ``header.revision`` is the store revision (``RangeResult.revision``, the revision of a
  write); every response of a transaction carries the transaction's revision, as in ``MemoryStore``;
* a watch event is ``PUT`` or ``DELETE``; a delete's ``kv`` is etcd's tombstone (empty value,
  ``create_revision = version = 0``); ``prev_kv`` is present only when asked for and still retained.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyetcd import etcdrpc
from pyetcd.etcdrpc import kv_pb2

from kbatch.store.kv import Compare, DeleteResult, Event, KeyValue, PutResult, RangeOp, RangeResult
from kbatch.store.records import make_event, make_kv, make_put_result, make_tombstone

__all__ = [
    "delete_request",
    "delete_result",
    "event",
    "key_value",
    "put_request",
    "put_result",
    "range_request",
    "range_result",
    "txn_request",
    "txn_responses",
    "wire_range",
]

_TARGET = {"version": etcdrpc.Compare.VERSION, "create": etcdrpc.Compare.CREATE,
           "mod": etcdrpc.Compare.MOD, "value": etcdrpc.Compare.VALUE}
_FIELD = {"version": "version", "create": "create_revision", "mod": "mod_revision", "value": "value"}
_RESULT = {"=": etcdrpc.Compare.EQUAL, "!=": etcdrpc.Compare.NOT_EQUAL, "<": etcdrpc.Compare.LESS,
           ">": etcdrpc.Compare.GREATER}
_DELETE = kv_pb2.Event.DELETE


def wire_range(start: bytes, end: bytes | None) -> bytes:
    """The etcd ``range_end`` of a range normalised by ``keyrange.key_range`` (``end is None``:
    unbounded; ``end == start + b"\\0"``: the single key)."""
    if end is None:
        return b"\0"
    if end == start + b"\0":
        return b""
    return end


# -- requests --------------------------------------------------------------------------------------

def range_request(start: bytes, end: bytes | None, revision: int, limit: int | None, keys_only: bool,
                  count_only: bool) -> Any:
    return etcdrpc.RangeRequest(key=start, range_end=wire_range(start, end), revision=revision,
                                limit=limit or 0, keys_only=keys_only, count_only=count_only)


def put_request(key: bytes, value: bytes, prev_kv: bool) -> Any:
    return etcdrpc.PutRequest(key=key, value=value, prev_kv=prev_kv)


def delete_request(start: bytes, end: bytes | None, prev_kv: bool) -> Any:
    return etcdrpc.DeleteRangeRequest(key=start, range_end=wire_range(start, end), prev_kv=prev_kv)


def _compare(c: Compare) -> Any:
    value = bytes(c.value) if c.target == "value" else c.value  # type: ignore[arg-type]
    return etcdrpc.Compare(key=bytes(c.key), target=_TARGET[c.target], result=_RESULT[c.op],
                           **{_FIELD[c.target]: value})


def _request_op(op: tuple) -> Any:
    """One branch entry as ``txn.prepare_branch`` normalised it."""
    kind = op[0]
    if kind == "put":
        return etcdrpc.RequestOp(request_put=put_request(op[1], op[2], op[3]))
    if kind == "delete":
        return etcdrpc.RequestOp(request_delete_range=delete_request(op[1], op[2], op[3]))
    r: RangeOp = op[3]
    return etcdrpc.RequestOp(request_range=range_request(op[1], op[2], 0, r.limit, r.keys_only, r.count_only))


def txn_request(compare: Sequence[Compare], success: Sequence[tuple], failure: Sequence[tuple]) -> Any:
    return etcdrpc.TxnRequest(compare=[_compare(c) for c in compare],
                              success=[_request_op(op) for op in success],
                              failure=[_request_op(op) for op in failure])


# -- responses -------------------------------------------------------------------------------------

def key_value(kv: Any) -> KeyValue:
    return make_kv(kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)


def range_result(resp: Any, revision: int, count_only: bool) -> RangeResult:
    kvs = tuple(make_kv(kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)
                for kv in resp.kvs)
    return RangeResult(kvs, resp.count, False if count_only else resp.more, revision)


def put_result(resp: Any, revision: int) -> PutResult:
    return make_put_result(revision, key_value(resp.prev_kv) if resp.HasField("prev_kv") else None)


def delete_result(resp: Any, revision: int) -> DeleteResult:
    return DeleteResult(revision, resp.deleted, tuple(key_value(kv) for kv in resp.prev_kvs))


def txn_responses(resp: Any, ops: Sequence[tuple],
                  revision: int) -> tuple[RangeResult | PutResult | DeleteResult, ...]:
    out: list[RangeResult | PutResult | DeleteResult] = []
    for op, r in zip(ops, resp.responses, strict=True):
        kind = op[0]
        if kind == "put":
            out.append(put_result(r.response_put, revision))
        elif kind == "delete":
            out.append(delete_result(r.response_delete_range, revision))
        else:
            out.append(range_result(r.response_range, revision, op[3].count_only))
    return tuple(out)


def event(ev: Any) -> Event:
    kv = ev.kv
    if ev.type == _DELETE:
        cur = make_tombstone(kv.key, kv.mod_revision)
    else:
        cur = make_kv(kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version)
    return make_event(cur, key_value(ev.prev_kv) if ev.HasField("prev_kv") else None)
