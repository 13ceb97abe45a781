"""One ``fieldManager`` check for every write path, as apimachinery's ``ValidateFieldManager``.

Upstream: k8s.io/apimachinery ``pkg/apis/meta/v1/validation/validation.go`` (v0.37.0-beta.0):
``ValidateFieldManager`` limits ``len(fieldManager)`` (Go: UTF-8 bytes) to 128 and reports each
character that is not ``unicode.IsPrint`` as ``invalid character %#U (at position <byte offset>)``;
``ValidatePatchOptions`` requires a manager for an apply patch before that.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldError, Invalid
from kbatch.apiserver import APIServer
from kbatch.apiserver.apply.operation import check_apply_options
from kbatch.apiserver.field_manager import field_manager_errors
from kbatch.apiserver.write_options import write_option_errors

JOB: dict[str, Any] = {
    "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default"},
    "spec": {"suspend": True, "template": {"spec": {"restartPolicy": "Never",
                                                    "containers": [{"name": "main", "image": "busybox"}]}}}}


def _apply_message(api: APIServer, manager: str) -> str:
    with pytest.raises(Invalid) as err:
        api.apply(JOB, field_manager=manager)
    return err.value.message


def test_an_apply_names_the_unprintable_character(api: APIServer) -> None:
    # ValidateFieldManager: "invalid character U+0009 (at position 3)", not a message of its own
    message = _apply_message(api, "tab\there")
    assert message == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "tab\\there": '
                       "invalid character U+0009 (at position 3)")


def test_the_position_of_an_unprintable_character_is_its_byte_offset(api: APIServer) -> None:
    # Go ranges over a string by byte offset: "é" takes 2 bytes, so the tab is at position 3
    assert _apply_message(api, "m\u00e9\ttab").endswith("invalid character U+0009 (at position 3)")


def test_the_128_limit_counts_utf8_bytes(api: APIServer) -> None:
    # Go's len() of a string is its byte count: 65 "é" are 130 bytes, too long
    message = _apply_message(api, "é" * 65)
    assert message == ('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more '
                       "than 128 bytes")
    assert api.apply(JOB, field_manager="é" * 64).metadata.managed_fields[0].manager == "é" * 64


@given(st.text(max_size=140))
def test_kbatch_serve_and_the_in_process_apply_agree(manager: str) -> None:
    # one check: the HTTP handler's PatchOptions errors for an apply are the in-process apply's
    served = write_option_errors([], "", manager, "apply")
    try:
        check_apply_options(manager)
        in_process: list[FieldError] = []
    except Invalid as err:
        in_process = list(err.errors or ())
    assert served == in_process
    assert bool(served) == (not manager or bool(field_manager_errors(manager)))
