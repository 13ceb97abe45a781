"""``--kueue-config`` with a bad ``metrics.customLabels`` entry, as separate ``kbatch`` commands.

Upstream: kubernetes-sigs/kueue v0.19.2 ``pkg/config/config.go`` (strict decoding: a misspelt
field is ``strict decoding error: unknown field "<path>"``) and ``pkg/config/validation.go``
``validateCustomLabels`` (a bad value is a field error). Either way the command fails with one
``error: --kueue-config`` message, no traceback, and nothing is recorded: a later command still
runs with the shipped configuration.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Kbatch

HEAD = ("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
        "featureGates: {CustomMetricLabels: true}\n")


@pytest.mark.parametrize(("entry", "message"), [
    ("{name: team, sourceLabelKy: org/team}",
     'strict decoding error: unknown field "metrics.customLabels[0].sourceLabelKy"'),
    ("{name: 1team}",
     'metrics.customLabels[0].name: Invalid value: "1team": must match ^[a-zA-Z][a-zA-Z0-9_]*$'),
])
def test_a_bad_custom_label_entry_is_one_clear_error(kb: Kbatch, tmp_path: Path, entry: str,
                                                     message: str) -> None:
    bad = tmp_path / "kueue.yaml"
    bad.write_text(HEAD + f"metrics:\n  customLabels:\n  - {entry}\n")
    res = kb("--kueue-config", str(bad), "nodes", "add")
    assert res.code != 0 and "Traceback" not in res.err, res.err
    assert res.err.startswith("error: --kueue-config") and message in res.err, res.err
    assert "kueue configuration: the shipped default" in kb.ok("controllers")  # nothing recorded


def test_a_good_custom_label_entry_is_recorded(kb: Kbatch, tmp_path: Path) -> None:
    good = tmp_path / "kueue.yaml"
    good.write_text(HEAD + "metrics:\n  customLabels:\n  - {name: team, sourceLabelKey: org/team}\n")
    kb.ok("--kueue-config", str(good), "nodes", "add")
    assert "as recorded in" in kb.ok("controllers")
