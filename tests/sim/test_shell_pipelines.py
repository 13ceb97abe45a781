"""Compound commands in pipelines and and-or lists, negated, and redirected (POSIX "Shell Command
Language" 2.9.2, 2.9.3, 2.9.4 and 2.7; bash(1) for ``|&``, ``&>>`` and ``e&>f``): each script's
output is compared with bash's (``--posix``) and dash's."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.command import DEFAULT_DURATION, interpret
from tests.sim.real_shell import SETUP, agree

_LINES = 'printf "a\\nb c\\n\\n  d  \\n" > f; '


@pytest.mark.parametrize("script", [
    _LINES + "cat f | while read l; do echo \"line <$l>\"; done",
    _LINES + "cat f | while IFS= read -r l; do echo \"<$l>\"; done | sort",
    _LINES + "n=0; cat f | while read l; do n=$((n+1)); done; echo \"n=$n\"",  # a pipeline's subshell
    "for i in 3 1 2; do echo $i; done | sort; for i in 3 1 2; do echo $i; done | sort -r | head -1",
    "for i in 1 2 3; do echo $i; done | while read n; do echo $((n*n)); done | tail -n 2",
    "if true; then echo yes; fi | tr y Y; case b in b) echo bee;; esac | tr b B",
    "echo x | if grep -q x; then echo found; else echo none; fi",
    "! if false; then :; fi; echo $?; ! for i in 1; do true; done; echo $?",
    "! while false; do :; done; echo $?; ! case a in a) false;; esac; echo $?",
    "if true; then echo a; echo b; fi > out; cat out; for i in 1 2; do echo $i; done >> out; cat out",
    "if true; then echo a; ls missing; fi > out 2>&1; cat out",
    "if true; then ls missing; fi 2>/dev/null; echo $?; for i in 1; do ls nope; done 2>&1 | wc -l",
    "case x in x) echo in-case;; esac > out; cat out; while false; do :; done > out2; cat out2",
    _LINES + "while read l; do echo \"[$l]\"; done < f | head -2",
    "for i in 1 2; do echo $i; done && echo ok || echo no",
    "if false; then :; else false; fi || echo else-failed; false && while true; do :; done; echo $?",
    "while read a b; do echo \"$b-$a\"; done <<EOF | sort\nx 1\ny 2\nEOF",
    "if true; then echo a; fi>f1; cat f1; for i in z; do echo $i; done|cat",
    "for i in 1 2 3; do echo $i; if [ $i = 2 ]; then break; fi; done | cat",
    "echo start; for i in a b; do echo $i; done > /dev/null; echo end",
    "case a in a) true && for i in 1 2; do echo $i; done;; esac",
    "if true; then echo a; fi && for i in 1; do echo $i; done",
    "for i in 1; do false; done && while true; do :; done; echo $?",
    "if false; then :; fi || while read l; do echo \"<$l>\"; done <<EOF && echo after\nx\nEOF",
    "[ -d /nonexist ] && for f in /nonexist/*; do echo $f; done || echo none",
])
def test_compound_commands_in_pipelines_and_lists_agree_with_real_shells(script: str) -> None:
    agree(SETUP + script)


@pytest.mark.parametrize("script", [
    "ls missing |& cat; ls missing |& wc -l",
    "echo a &>> g; echo b &>>g; ls missing &>> g; cat g",
    "echo e&>h; cat h; echo f &>h; cat h",
    "if true; then echo x; ls missing; fi |& sort",
])
def test_bash_redirections_agree_with_bash(script: str) -> None:
    agree(SETUP + script, ("bash",))


def test_a_pipeline_into_a_loop_takes_its_commands_time() -> None:
    run = interpret(["sh", "-c", "seq=\"1 2 3\"; for i in $seq; do echo $i; sleep 2; done | while read n; do "
                                 "echo got $n; done"])
    assert (run.duration, run.logs) == (6.0, ("got 1", "got 2", "got 3"))


def test_a_never_ending_loop_piped_runs_until_killed() -> None:
    run = interpret(["sh", "-c", "while true; do sleep 10; done | cat"])
    assert run.duration == math.inf


def test_an_unmodelled_command_in_a_piped_loop_makes_the_pipeline_anything_else() -> None:
    run = interpret(["sh", "-c", "echo x | while read l; do curl $l; done; echo after"])
    assert (run.duration, run.logs) == (DEFAULT_DURATION, ("after",))


_BODY = st.lists(st.sampled_from(["echo a", "echo b c", "printf 'x\\n'", "ls missing", "true", "false"]),
                 min_size=1, max_size=4).map("; ".join)
_COMPOUNDS = ["if true; then {}; fi", "for i in 1 2; do {}; done", "case x in x) {};; esac",
              "while true; do {}; break; done"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_COMPOUNDS), _BODY)
def test_a_compound_commands_output_is_the_same_redirected_piped_or_not(shape: str, body: str) -> None:
    compound = shape.format(body)
    plain = interpret(["sh", "-c", f"{compound} 2>&1"]).logs
    assert interpret(["sh", "-c", f"{compound} > /tmp/o 2>&1; cat /tmp/o"]).logs == plain
    assert interpret(["sh", "-c", f"{compound} 2>&1 | cat"]).logs == plain
    assert interpret(["sh", "-c", f"{compound} |& cat"]).logs == plain
