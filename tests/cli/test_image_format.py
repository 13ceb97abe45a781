"""An image of an older format (kbatch/runtime/image.py ``FORMAT``) is refused by a command in one
line that says what to do, not with a traceback (session 43 changed the format: the pickle holds
deferred objects' states as columns, kbatch/runtime/pickling.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kbatch.runtime.image import FORMAT, MAGIC

from .runners import ROOT


def _kbatch(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("KBATCH_SERVER", None)
    return subprocess.run([sys.executable, "-m", "kbatch.cli", "--state", str(state), *args],
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def test_an_image_of_the_previous_format_is_refused_in_one_line(tmp_path: Path) -> None:
    assert _kbatch(tmp_path, "nodes", "add", "--count", "1").returncode == 0
    image = tmp_path / "state.kbatch"
    data = image.read_bytes()
    head, _, body = data[len(MAGIC):].partition(b"\n")
    header = json.loads(head)
    assert header["format"] == FORMAT
    older = MAGIC + json.dumps({**header, "format": FORMAT - 1}).encode() + b"\n" + body
    image.write_bytes(older)
    done = _kbatch(tmp_path, "get", "nodes")
    assert done.returncode != 0 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"image format {FORMAT - 1}" in lines[0] and "kbatch reset" in lines[0]
    assert image.read_bytes() == older  # refused, not rewritten
    assert _kbatch(tmp_path, "reset").returncode == 0  # what the line says to do works
    assert _kbatch(tmp_path, "get", "nodes").returncode == 0
