"""How the CLI prints a server Status (kubectl pkg/cmd/util/helpers.go StandardErrorMessage): the
reason in parentheses when the Status has one, plain ``Error from server:`` when it has none (the
eviction API's multiple-PDB answer is a 500 without a reason)."""

from __future__ import annotations

from kbatch.api.errors import NotFound
from kbatch.apiserver.eviction import MultiplePDBs
from kbatch.cli.errors import describe_error


def test_status_with_reason_names_it() -> None:
    err = NotFound.of("pods", "missing")
    assert describe_error(err) == 'Error from server (NotFound): pods "missing" not found'


def test_status_without_reason_prints_no_parentheses() -> None:
    err = MultiplePDBs("This pod has more than one PodDisruptionBudget, which the eviction subresource "
                       "does not support.")
    line = describe_error(err)
    assert line == ("Error from server: This pod has more than one PodDisruptionBudget, which the eviction "
                    "subresource does not support.")
