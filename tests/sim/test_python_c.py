"""``python3 -c``'s subset (kbatch/sim/python_c.py): exit codes, output and errors as CPython's."""

from __future__ import annotations

import pytest

from kbatch.sim.command import interpret, unmodelled_command

# kubernetes/website content/en/examples/controllers/job-backoff-limit-per-index-example.yaml
EVEN_FAILS = ('import os, sys\nprint("Hello world")\n'
              'if int(os.environ.get("JOB_COMPLETION_INDEX")) % 2 == 0:\n  sys.exit(1)\n')


@pytest.mark.parametrize(("index", "code"), [("0", 1), ("3", 0)])
def test_the_docs_script_exits_by_its_index(index: str, code: int) -> None:
    run = interpret(["python3", "-c", EVEN_FAILS], {"JOB_COMPLETION_INDEX": index})
    assert (run.exit_code, run.logs, run.duration) == (code, ("Hello world",), 0.0)


@pytest.mark.parametrize(("script", "code", "logs"), [
    ("import sys\nsys.exit(300)", 300 & 0xFF, ()),
    ("import sys\nsys.exit()", 0, ()),
    ("import sys\nsys.exit('bye')", 1, ("bye",)),
    ("print('a', 'b', sep='-', end='!\\n')\nprint(f'{2 * 3:03d}', [1, 'x'])", 0, ("a-b!", "006 [1, 'x']")),
    ("import os\nprint(os.getenv('NOPE', 'd'), os.environ['HOME'])", 0, ("d /root",)),
    ("import os, sys\nprint('HOME' in os.environ, file=sys.stderr)", 0, ("True",)),
    ("x = 1\nif x:\n  print(y)", 1, ("Traceback (most recent call last):",
                                     '  File "<string>", line 3, in <module>',
                                     "NameError: name 'y' is not defined")),
    ("import os\nos.environ['NOPE']", 1, ("Traceback (most recent call last):",
                                         '  File "<string>", line 2, in <module>', "KeyError: 'NOPE'")),
])
def test_exit_codes_output_and_errors(script: str, code: int, logs: tuple[str, ...]) -> None:
    run = interpret(["python3", "-c", script], {"HOME": "/root"})
    assert (run.exit_code, run.logs) == (code, logs)


def test_sleep_takes_its_time_and_each_line_is_printed_when_reached() -> None:
    script = "import time\nfor i in range(3):\n  print(i)\n  time.sleep(2)"
    run = interpret(["/usr/local/bin/python", "-c", script])
    assert (run.duration, run.logs, run.log_offsets) == (6.0, ("0", "1", "2"), (0.0, 2.0, 4.0))


@pytest.mark.parametrize("script", ["import numpy", "while True: pass", "open('/x').read()", "def f(): pass",
                                    "import os as o", "print(1 +)",
                                    "import os\nprint(os.environ)", "import sys\nprint(sys.stdout)"])
def test_anything_outside_the_subset_is_unmodelled(script: str) -> None:
    assert unmodelled_command(["python3", "-c", script]) == f"python3 -c {script}"
    assert interpret(["python3", "-c", script]).duration == 1.0  # the default run


@pytest.mark.parametrize("script", ["for i in range(10**6): print(i)", "for i in range(10**12): pass",
                                    "print(max(range(10**12)))", "x = 9**64\nx = x**64\nx = x**64",
                                    "print('x' * 10**9)", "x = " + "(" * 500 + "1" + ")" * 500])
def test_a_run_too_long_or_too_large_to_follow_is_the_default_run(script: str) -> None:
    assert interpret(["python3", "-c", script]).duration == 1.0
