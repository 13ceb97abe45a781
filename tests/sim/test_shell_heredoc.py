"""Here-documents found by the one scanner (kbatch.sim.shell_input over kbatch.sim.shell_scan; POSIX
"Shell Command Language" 2.7.4, 2.3): the operators on a line are found as the shell tokenizes it,
inside a command substitution too (``x=$(cat <<EOF …)``, which bash and dash both read), never inside
quotes, arithmetic (``$((1 << 2))``), a ``${ }`` or a here-string's ``<<<``. Each script is compared
with bash ``--posix`` and dash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbatch.sim.shell_input import lift_heredocs
from tests.sim.real_shell import agree


@pytest.mark.parametrize("script", [
    'V=v; x=$(cat <<EOF\nhello $V\nEOF\n)\necho "[$x]"',
    'x="$(cat <<\'EOF\'\nit\'s $V\nEOF\n)"; echo "[$x]"',
    "echo $(cat <<A; cat <<B\none\nA\ntwo\nB\n) end",
    'echo "$((1 << 3))" <<EOF\nignored\nEOF\necho after',
    "cat <<EOF; echo '<<NOT'\nbody\nEOF",
    "cat <<'E F'\nbody 'quoted'\nE F\necho \"<<x\"",
    'y=$(echo a; cat <<-EOF\n\tb\n\tEOF\necho c)\necho "$y"',
    "f() { cat <<EOF\nin $1\nEOF\n}; f one; f two",
    "cat <<EOF | while read l; do echo \"<$l>\"; done\np\nq\nEOF",
])
def test_here_documents_agree_with_real_shells(script: str) -> None:
    agree(script)


def test_a_here_document_in_a_substitution_is_lifted_into_it() -> None:
    lifted = lift_heredocs("x=$(cat <<EOF\nbody\nEOF\n)")
    assert "body" not in lifted and lifted.startswith("x=$(cat <<#e") and lifted.endswith("\n)")


_LINE = st.text(st.sampled_from("ab $'\"<"), max_size=8)


@settings(max_examples=30, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_generated_bodies_in_substitutions_agree_with_real_shells(lines: list[str], quoted: bool,
                                                                  inside: bool) -> None:
    body = "".join(line.replace("$", "") + "\n" for line in lines)
    delimiter = "'EOF'" if quoted else "EOF"
    heredoc = f"cat <<{delimiter}\n{body}EOF\n"
    script = f'x=$({heredoc})\necho "[$x]"' if inside else heredoc + "echo end"
    agree(script)
