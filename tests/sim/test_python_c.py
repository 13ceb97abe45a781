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
    ("import time\ntime.sleep(float('nan'))", 1, ("Traceback (most recent call last):",
                                                  '  File "<string>", line 2, in <module>',
                                                  "ValueError: Invalid value NaN (not a number)")),
    ("import time\ntime.sleep('2')", 1, ("Traceback (most recent call last):",
                                         '  File "<string>", line 2, in <module>',
                                         "TypeError: 'str' object cannot be interpreted as an integer")),
])
def test_exit_codes_output_and_errors(script: str, code: int, logs: tuple[str, ...]) -> None:
    """Each compared with CPython 3.11 (``python3 -c``)."""
    run = interpret(["python3", "-c", script], {"HOME": "/root"})
    assert (run.exit_code, run.logs) == (code, logs)


@pytest.mark.parametrize(("env", "flush", "offsets"), [
    ({}, "", (6.0, 6.0, 6.0)),  # stdout to a pipe is block-buffered: every line at the exit
    ({"PYTHONUNBUFFERED": "1"}, "", (0.0, 2.0, 4.0)),
    ({}, ", flush=True", (0.0, 2.0, 4.0)),
    ({}, ", file=sys.stderr", (0.0, 2.0, 4.0)),
])
def test_sleep_takes_its_time_and_lines_reach_the_log_when_flushed(
        env: dict[str, str], flush: str, offsets: tuple[float, ...]) -> None:
    """As CPython 3.11 here: without ``PYTHONUNBUFFERED`` a piped ``print`` shows only at exit."""
    script = f"import sys, time\nfor i in range(3):\n  print(i{flush})\n  time.sleep(2)"
    run = interpret(["/usr/local/bin/python", "-c", script], env)
    assert (run.duration, run.logs, run.log_offsets) == (6.0, ("0", "1", "2"), offsets)


def test_stderr_comes_before_the_stdout_an_exit_flushes() -> None:
    run = interpret(["python3", "-c", "import sys\nprint('out')\nsys.exit('bye')"])
    assert (run.exit_code, run.logs) == (1, ("bye", "out"))


@pytest.mark.parametrize("script", ["import numpy", "while True: pass", "open('/x').read()", "def f(): pass",
                                    "import os as o", "print(1 +)",
                                    "import os\nprint(os.environ)", "import sys\nprint(sys.stdout)"])
def test_anything_outside_the_subset_is_unmodelled(script: str) -> None:
    assert unmodelled_command(["python3", "-c", script]) == f"python3 -c {script}"
    assert interpret(["python3", "-c", script]).duration == 1.0  # the default run


@pytest.mark.parametrize("script", ["for i in range(10**6): print(i)", "for i in range(10**12): pass",
                                    "print(max(range(10**12)))", "x = 9**64\nx = x**64\nx = x**64",
                                    "print('x' * 10**9)", "x = " + "-" * 5000 + "1",
                                    "for i in range(10000):\n  for j in range(10000):\n    pass",
                                    "x = 10**64\nfor i in range(40):\n  x = x * x",
                                    "x = 'a' * 10000\nfor i in range(40):\n  x = x + x",
                                    "for i in range(5000):\n  print('y' * 1000, end='')",
                                    "import time\ntime.sleep(float('inf'))"])
def test_a_run_too_long_or_too_large_to_follow_is_the_default_run(script: str) -> None:
    run = interpret(["python3", "-c", script])
    assert (run.duration, run.exit_code) == (1.0, 0)


@pytest.mark.parametrize("script", ["print(f'{1:>3000000000}')", "print('%3000000000d' % 1)",
                                    "print(1 << 3)", "x = 1\nx @= 2"])
def test_wide_formats_and_operators_outside_the_subset_are_not_run(script: str) -> None:
    run = interpret(["python3", "-c", script])
    modelled = unmodelled_command(["python3", "-c", script]) is None
    assert run.duration == 1.0 and (not modelled or run.warning), script
