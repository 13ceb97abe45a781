"""CLI fixtures: a ``kbatch`` runner bound to a fresh state directory."""

from __future__ import annotations

import gc
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kbatch.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


class Kbatch:
    """Runs ``kbatch --state DIR ARGS…`` in process through the real entry point (``main``), so
    exit codes and error lines are exactly what a user sees."""

    def __init__(self, state: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.state = state
        self.capsys = capsys
        self.runner = CliRunner()

    def __call__(self, *args: str, input_: str | None = None) -> Result:
        self.capsys.readouterr()
        argv = ["--state", str(self.state), *args]
        if input_ is not None:
            from kbatch.cli.app import app

            res = self.runner.invoke(app, argv, input=input_)
            gc.unfreeze()  # as below
            return Result(res.exit_code, res.stdout, res.stderr if res.stderr_bytes is not None else "")
        try:
            main(argv)
            code = 0
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        gc.unfreeze()  # a loaded image is frozen for the command's life (runtime/image.py); not the test's
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)

    def ok(self, *args: str, input_: str | None = None) -> str:
        res = self(*args, input_=input_)
        assert res.code == 0, f"kbatch {' '.join(args)} failed ({res.code}): {res.err}{res.out}"
        return res.out


@pytest.fixture
def kb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Kbatch:
    return Kbatch(tmp_path / "state", capsys)
