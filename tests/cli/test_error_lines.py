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


def test_an_invalid_object_prints_as_kubectl_prints_it() -> None:
    """kubectl handles ``Invalid`` before any other Status (k8s.io/kubectl ``pkg/cmd/util/helpers.go``
    ``checkErr``): ``The <kind> "<name>" is invalid: `` then its causes as ``field: message``, one
    inline, several as ``* `` lines; the Status message (``Job.batch "x" is invalid: […]``) is not
    shown."""
    from kbatch.api.errors import FieldError, Invalid

    one = Invalid.of("Job.batch", "bad", [FieldError.invalid("spec.parallelism", -1,
                                                            "must be greater than or equal to 0")])
    assert describe_error(one) == (
        'The Job "bad" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0')
    two = Invalid.of("Job.batch", "bad2", [
        FieldError.invalid("spec.parallelism", -1, "must be greater than or equal to 0"),
        FieldError.invalid("spec.completions", -2, "must be greater than or equal to 0"),
        FieldError.invalid("spec.completions", -2, "must be greater than or equal to 0")])  # a repeat
    assert describe_error(two) == (
        'The Job "bad2" is invalid: \n'
        "* spec.parallelism: Invalid value: -1: must be greater than or equal to 0\n"
        "* spec.completions: Invalid value: -2: must be greater than or equal to 0")
    assert describe_error(Invalid("no details")) == "The request is invalid"


def test_a_webhook_refusal_prints_its_kind_and_causes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``kbatch apply`` of a JobSet the ``vjobset.kb.io`` webhook refuses prints what kubectl prints
    for it (the details of the webhook's Status), not the Status message with the webhook prefix."""
    import contextlib
    import io

    from kbatch.cli import main

    manifest = tmp_path / "js.yaml"
    manifest.write_text(
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n"
        "  failurePolicy: {rules: [{action: RestartJob}]}\n  replicatedJobs:\n  - name: w\n"
        "    template: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}\n")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        main(["--state", str(tmp_path / "state"), "apply", "-f", str(manifest)])
    assert err.getvalue() == (
        'The JobSet "js" is invalid: <nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts '
        "failure policy actions are not allowed when RestartJob feature gate is disabled\n")


def _outcomes() -> object:
    from hypothesis import strategies as st

    return st.lists(st.sampled_from(["ok", "client", "notfound", "invalid"]), max_size=6)


def _each_reporting_case(outcomes: list[str], capsys) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    import typer

    from kbatch.api.errors import Invalid
    from kbatch.cli.errors import UserError, each_reporting

    def one(item: tuple[int, str]) -> str:
        index, outcome = item
        if outcome == "client":
            raise UserError(f"error: bad {index}")
        if outcome == "notfound":
            raise NotFound.of("pods", f"p{index}")
        if outcome == "invalid":
            raise Invalid(f'Job.batch "j{index}" is invalid: spec: Required value')
        return f"pod/p{index} created"

    code = 0
    try:
        each_reporting(list(enumerate(outcomes)), one)
    except typer.Exit as exit_:
        code = exit_.exit_code
    out, err = capsys.readouterr()
    return code, out, err


def test_several_failures_print_after_the_successes_as_kubectl_aggregates(  # type: ignore[no-untyped-def]
        capsys) -> None:
    """kubectl's commands over several objects collect their errors (``utilerrors.NewAggregate``)
    and ``CheckErr`` prints one as a single error, several through ``MultipleErrors("", ...)``:
    every success first, exit 1 iff something failed, a lone client-side error with ``error:``, a
    client-side error among several bare, a Status always ``Error from server (Reason): ...``."""
    from hypothesis import given, settings

    @settings(max_examples=60, deadline=None)
    @given(_outcomes())
    def check(outcomes: list[str]) -> None:
        code, out, err = _each_reporting_case(outcomes, capsys)
        failures = [i for i, o in enumerate(outcomes) if o != "ok"]
        assert code == (1 if failures else 0)
        assert out.splitlines() == [f"pod/p{i} created" for i, o in enumerate(outcomes) if o == "ok"]
        lines = err.splitlines()
        assert len(lines) == len(failures)
        for line, i in zip(lines, failures, strict=True):
            if outcomes[i] == "client":
                assert line == (f"error: bad {i}" if len(failures) == 1 else f"bad {i}")
            elif outcomes[i] == "notfound":
                assert line == f'Error from server (NotFound): pods "p{i}" not found'
            elif len(failures) > 1:
                assert line == (f'Error from server (Invalid): Job.batch "j{i}" is invalid: spec: '
                                "Required value")

    check()
