"""Functions and positional parameters in the simulated shell (POSIX "Shell Command Language" 2.9.5,
2.5.1-2, XCU ``sh -c``, ``shift``, ``return``; dash's and bash's ``local``): each script compared
with bash ``--posix`` and dash, where they agree; where they differ kbatch follows dash."""

from __future__ import annotations

import pytest

from kbatch.sim.command import interpret
from kbatch.sim.shell_functions import MAX_DEPTH
from tests.sim.real_shell import SETUP, agree, real_output, simulated_output

INTO_D = SETUP.removesuffix(" && ") + "\n"  # a definition starts its own list here


@pytest.mark.parametrize("script", [
    'f() { echo "$# [$1] [$2]"; }; f a "b c"; f',
    "f() { return 3; }; f; echo $?; g() { false; return; }; g; echo $?",
    "f() { x=in; }; x=out; f; echo $x",
    "f() { local x=in; echo $x; }; x=out; f; echo $x",
    'g() { echo "g:$*:$#"; }; f() { g "$@" z; }; f a "b c"',
    'f() { shift; echo "$@"; shift 2; echo "$#"; }; f a b c d',
    "f() { echo $1; }; f x | tr x y",
    'f() { echo "<$(g)>"; }; g() { echo inner; }; f',
    "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 6",
    'f() { for a; do echo "<$a>"; done; }; f 1 "2 3"; f',
    'f() { echo "${1:-default} ${2-unset} ${#1}"; }; f; f given ""',
    "f()\n{\n  echo newline\n}\nf",
    "f() { echo hidden; } > /dev/null; f; echo after",
    "f() ( x=2; exit 4 ); x=1; f; echo $? $x",
    "f() { echo \"$@\" | wc -w; }; f a 'b c' d",
    'f() { cd "$1" && touch made; }; mkdir d; f d; ls',
    "f() { [ $1 -gt 0 ] && echo $1 && f $(( $1 - 1 )); }; f 3",
    'set -- a "b c"; echo $# "$2"; set --; echo $#; set -e -- x; echo $1',
    "f() { echo ${10} $10; }; f 1 2 3 4 5 6 7 8 9 ten",
    "set -e; f() { false; echo not; }; f; echo not either",
    'f() { while read -r l; do echo "[$l]"; done; }; printf "a\\nb\\n" | f; f < /dev/null',
    "f() { echo one; }; f() { echo two; }; f",
    'IFS=,; f() { echo $#; }; v="a,b"; f $v; f "$*"; set -- x y; f "$*"',
])
def test_functions_agree_with_real_shells(script: str) -> None:
    agree(INTO_D + script)


def test_the_function_keyword_is_bash_s() -> None:
    agree("function f { echo bash; }; function g() { echo too; }; f; g", ("bash",))


@pytest.mark.parametrize(("script", "args"), [
    ('echo "$0 [$1] [$2] $#"', ("name", "a", "b c")),
    ('echo "$@"; shift; echo "$*"; for a; do echo "<$a>"; done', ("n", "1", "2 3")),
    ('echo "${1:-none}" "${2:-two}"; echo $#', ("n", "x")),
    ('echo "${1:-none}" $#', ()),
])
def test_sh_c_operands_are_0_and_the_positional_parameters(script: str, args: tuple[str, ...]) -> None:
    agree(script, args=args)


@pytest.mark.parametrize(("script", "message"), [
    ("local x=1; echo not", "sh: 1: local: not in a function"),
    ("f() { shift 2; }; f a; echo not", "sh: 1: shift: can't shift that many"),
])
def test_special_builtin_errors_end_the_script_as_in_dash(script: str, message: str) -> None:
    assert simulated_output(script) == (message + "\n", 2)
    assert real_output("dash", script)[1] == 2  # dash's words: "dash: 1: local: not in a function"


def test_return_outside_a_function_exits_as_in_dash() -> None:
    # bash --posix calls it an error and exits 2; dash leaves the script with the status
    assert simulated_output("echo a; return 4; echo b") == real_output("dash", "echo a; return 4; echo b")


def test_recursion_is_bounded_with_bash_s_message() -> None:
    run = interpret(["sh", "-c", "f() { f; }; f; echo not"])
    assert run.logs == (f"sh: 1: f: maximum function nesting level exceeded ({MAX_DEPTH})",)
    assert run.exit_code == 2
    deep = interpret(["sh", "-c", f"f() {{ [ $1 -lt {MAX_DEPTH} ] && f $(( $1 + 1 )) || echo $1; }}; f 1"])
    assert deep.logs == (str(MAX_DEPTH),)


def test_a_call_takes_the_time_of_its_commands() -> None:
    run = interpret(["sh", "-c", 'step() { echo "step $1"; sleep "$2"; }; step a 3; step b 2'])
    assert (run.duration, run.logs, run.log_offsets) == (5.0, ("step a", "step b"), (0.0, 3.0))


@pytest.mark.parametrize("script", [
    'mkdir -p d; cd d && f() { echo "in ${PWD#$D}"; }; f',
    "f() { echo a; } && echo ok; f",
    "false && k() { echo k; }; echo $?; true || g() { :; }; echo $?",
    "x=1; [ $x = 1 ] && f() { echo one; }; f; ! true || h() { echo h; }; h",
    "f() { echo p; } | cat; echo piped",
])
def test_a_definition_in_an_and_or_list_or_pipeline_agrees_with_real_shells(script: str) -> None:
    """2.9.2-3: a function definition is a command of its list (status 0), run when the list gets
    to it; in a pipeline it is defined in the stage's subshell alone."""
    agree(INTO_D + script)


def test_a_definition_after_and_is_no_longer_anything_else() -> None:
    run = interpret(["sh", "-c", "true && f() { sleep 5; }; f; exit 3"])
    assert (run.duration, run.exit_code) == (5.0, 3)


@pytest.mark.parametrize("script", [
    "f() { cd /nx; }\ng() { f; }\necho\ng; cd /ny",
    "echo a\nf() {\n  echo b\n  cd /nx\n}\nf",
    "f() { echo $(cd /nx); }; f",
    "f() { for ((i=0;i<1/0;i++)); do :; done; echo in $?; }; f; echo $?",
    "f() { echo $(( 1/0 )); }; f; echo after",
])
def test_bash_names_the_environment_for_an_error_inside_a_function(script: str) -> None:
    """A function a ``bash -c`` string defines has ``environment`` for its source file
    (``${BASH_SOURCE[0]}``), and bash's messages from inside it (``error.c`` names the running
    function's source) read ``environment: line N: …``, N the script's line; outside it, ``bash:``."""
    assert simulated_output(script, shell="bash") == real_output("bash", script, posix=False), script
