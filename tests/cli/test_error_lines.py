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


def test_a_reader_that_stops_early_gets_no_error_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``kbatch get nodes -o yaml | head -1``: the pipe closes under a long output; kubectl dies of
    SIGPIPE silently, kbatch stops quietly too (no ``error: [Errno 32] Broken pipe``, no traceback)."""
    import subprocess
    import sys

    cli = [sys.executable, "-m", "kbatch", "--state", str(tmp_path)]
    subprocess.run([*cli, "nodes", "add", "--count", "200"], check=True, capture_output=True, timeout=120)
    reader = subprocess.Popen([*cli, "get", "nodes", "-o", "yaml"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stdout.readline()
    reader.stdout.close()  # the reader goes away with most of the output unread
    _, err = reader.communicate(timeout=120)
    assert b"Broken pipe" not in err and b"Traceback" not in err, err
