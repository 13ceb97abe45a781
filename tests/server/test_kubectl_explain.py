"""``kbatch explain`` and the real kubectl against one ``kbatch serve``: byte for byte.

kubectl explain renders the server's OpenAPI v3 with its ``plaintext`` template (k8s.io/kubectl
v0.37.0-beta.0 ``pkg/explain/v2/templates/plaintext.tmpl``; the installed v1.32's template is the same
but for ``--max-depth``, which 1.32 does not have); kbatch renders the same document in Python.
"""

from __future__ import annotations

from typing import Any

import pytest

from kbatch.cli import main
from tests.server.test_kubectl import KUBECTL, kubectl

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

CASES = [
    ("jobs",),
    ("jobs.spec",),
    ("job.spec.backoffLimit",),
    ("jobs.batch.spec.template.spec.containers",),  # a group-qualified resource
    ("pods.spec.containers.resources",),
    ("pod.spec.restartPolicy",),
    ("pods.metadata",),
    ("nodes.status",),
    ("cronjobs.spec.jobTemplate",),
    ("job.spec.podFailurePolicy", "--recursive"),
    ("pods.spec", "--recursive"),
    ("jobs", "--api-version", "batch/v1"),
    ("cronjobs", "--api-version", "batch/v1"),
    ("jobsets.spec",),
    ("workloads.spec", "--recursive"),
    ("clusterqueues.spec",),
    ("resourceclaims.spec", "--recursive"),  # RawExtension fields: kubectl failed on their {} schema
    ("resourceclaims.spec.devices.config.opaque.parameters",),
    ("resourceclaims.status.devices",),
    ("job.spec.nope",),  # the header on stdout, then the error
    ("nope",),  # kubectl's no-match words, without "error: "
    (),  # no resource
    ("jobs", "pods"),  # one resource only
    ("jobs", "--api-version", "batch/v9"),
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a))
def test_explain_prints_as_kubectl(served: Any, capsys: pytest.CaptureFixture[str],
                                   args: tuple[str, ...]) -> None:
    ref = kubectl(served, "explain", *args, check=False)
    capsys.readouterr()
    code = 0
    try:
        main(["--server", served.url, "explain", *args])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    got = capsys.readouterr()
    # cmdutil.SuggestAPIResources names the running program: kubectl's words, kbatch's command
    expected_err = ref.stderr.replace('"kubectl api-resources"', '"kbatch api-resources"')
    assert (code != 0, got.out, got.err) == (ref.returncode != 0, ref.stdout, expected_err)
