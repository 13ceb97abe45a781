"""A warning text goes out as an RFC 7230 quoted-string, ``"`` and ``\\`` escaped
(k8s.io/apimachinery pkg/util/net/http.go ``NewWarningHeader``/``makeQuotedString``), and the
``kbatch --server`` client reads it back as client-go's ``ParseWarningHeader`` does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kbatch.server.warning_header import warning_header, warning_text


def test_quotes_and_backslashes_are_escaped() -> None:
    assert warning_header('use "a" or \\b') == ("warning", '299 - "use \\"a\\" or \\\\b"')
    assert warning_header("plain") == ("warning", '299 - "plain"')


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"))))
def test_the_client_reads_back_what_the_server_sent(text: str) -> None:
    assert warning_text(warning_header(text)[1]) == text
