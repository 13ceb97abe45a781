"""``describe`` and ``delete`` of a create-only review print what kubectl prints against a server that
serves only its ``POST`` (k8s.io/apiserver ``pkg/endpoints/installer.go``: a ``rest.Creater`` alone
gets one route): kubectl itself, against ``kbatch serve``, is the oracle, for ``kbatch --server`` and
for the state directory alike. ``delete tokenreview x`` sends a ``DELETE`` no route serves (404), where
kbatch printed the list's 405 before; ``delete tokenreviews`` with no name is the resource builder's
error, sent nowhere; ``describe … x`` falls back to listing names with that prefix
(``DescribeMatchingResources``) and so meets the 405."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runners import ROOT

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine")

COMMANDS = [
    ("delete", "tokenreview", "x"),
    ("delete", "tokenreviews.authentication.k8s.io", "x", "y"),
    ("delete", "tokenreview/x"),
    ("delete", "tokenreviews"),
    ("delete", "tokenreviews", "--all"),
    ("delete", "subjectaccessreviews", "-l", "a=b"),
    ("describe", "subjectaccessreviews"),
    ("describe", "subjectaccessreviews", "x"),
    ("describe", "selfsubjectreviews", "-A"),
]


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", COMMANDS, ids="-".join)
def test_review_verbs_as_kubectl(served: Any, tmp_path: Path, args: tuple[str, ...]) -> None:
    assert KUBECTL is not None
    want = _run([KUBECTL, *args], served.env())
    env = {**served.env(), "PYTHONPATH": str(ROOT)}
    remote = _run([sys.executable, "-m", "kbatch", "--server", served.url, *args], env)
    local = _run([sys.executable, "-m", "kbatch", "--state", str(tmp_path / "state"), *args], env)
    assert want.returncode == 1
    for got in (remote, local):
        assert (got.returncode, got.stdout, got.stderr) == (1, want.stdout, want.stderr)
