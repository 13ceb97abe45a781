"""``pip install kbatch`` with no extras, in a fresh virtualenv (no system site-packages), gives a
working ``kbatch conformance``: the suite ships with kbatch and its runner (pytest, hypothesis) is a
dependency. The venv's pip uses the machine's configured indexes and wheel cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from tests.conformance_suite.validate import validate_json

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis",
                              ".kbatch", ".pytest_cache", ".ruff_cache", "benchmarks")


def _run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_plain_pip_install_runs_the_whole_suite(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=SKIP)  # build from a copy: no build/ left in the checkout
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, system_site_packages=False)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    pip = _run([str(bin_dir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                str(source)], tmp_path, 600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    work = tmp_path / "elsewhere"  # not the repository: nothing of the checkout on the path
    work.mkdir()
    version = _run([str(bin_dir / "kbatch"), "version"], work, 60)
    assert version.returncode == 0 and "Kubernetes v1.37.0" in version.stdout, version.stderr
    res = _run([str(bin_dir / "kbatch"), "conformance", "-o", "json"], work, 600)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-4000:]
    doc = json.loads(res.stdout)
    validate_json(doc)
    listing = _run([str(bin_dir / "kbatch"), "conformance", "--list", "-o", "json"], work, 120)
    listed = json.loads(listing.stdout)
    assert doc["summary"]["passed"] == doc["summary"]["total"] == len(listed["semantics"]) >= 80
    assert sorted(os.listdir(work)) == []  # no .hypothesis, no cache: the run writes nothing where it runs
