"""Cases of upstream's name-validation tables, ported one by one (k8s.io/apimachinery at commit
eed236ce, the 1.37 tree): ``pkg/util/validation/validation_test.go`` (TestIsDNS1123Label,
TestIsDNS1123Subdomain, TestIsDNS1035Label, TestIsQualifiedName, TestIsValidLabelValue) and
``pkg/api/validate/content/kube_test.go`` (TestIsLabelKey, TestIsLabelValue).

Since 1.35 ``IsQualifiedName`` and ``IsValidLabelValue`` are aliases of ``content.IsLabelKey`` and
``content.IsLabelValue`` (``pkg/util/validation/validation.go``), whose messages differ from the
older ones: the too-long message counts *bytes* (``content.MaxLenError``), a key with two slashes
is "a valid label key ...", and the name part's regex message is reported even when the name part
is empty or too long. The message cases below are read from ``pkg/api/validate/content/kube.go``
and ``errors.go``; the label-selector code (``kbatch.api.selectors``) must give the same answers
as the object validators (``kbatch.api.validation``), so every case runs through both.
"""

from __future__ import annotations

import pytest

from kbatch.api.selectors import label_key_errors, label_value_errors
from kbatch.api.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)

DNS1123_LABEL_GOOD = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a",
                      "1--a--b--2", "a" * 63]
DNS1123_LABEL_BAD = ["", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_",
                     "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ",
                     " a", "a b", "1 ", " 1", "1 2", "a" * 64]
DNS1123_SUBDOMAIN_GOOD = [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1", "a-1.1",
    "a--1--2--b.1", "0.a", "01.a", "012.a", "1a.a", "1-a.a", "1--a--b--2", "0.1", "01.1", "012.1",
    "1a.1", "1-a.1", "1--a--b--2.1", "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55",
    "a" * 253,
]
DNS1123_SUBDOMAIN_BAD = [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_",
    "_1", "1_2", ".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a", "a b", "1 ", " 1", "1 2",
    "A.a", "aB.a", "ab.A", "A1.a", "a1.A", "A.1", "aB.1", "A1.1", "1A.1", "0.A", "01.A", "012.A", "1A.a",
    "1a.A", "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a_b", "a;b",
    "a:b", "a%b", "a?b", "a$b", "a" * 254,
]
DNS1035_GOOD = ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "a" * 63]
DNS1035_BAD = ["0", "01", "012", "1a", "1-a", "1--a--b--2", *DNS1123_LABEL_BAD]
QUALIFIED_GOOD = [
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple",
    "1-num.2-num/3-num", "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123",
    "example.com/Uppercase_Is_OK_123", "requests.storage-foo", "a" * 63, "a" * 253 + "/" + "b" * 63,
]
QUALIFIED_BAD = [
    "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash", "Example.com/abc",
    "example_com/abc", "example.com/", "/simple", "a" * 64, "a" * 254 + "/abc",
    "abc\n", "example.com/abc\n",  # Go's `$` is end of text; Python's `$` also matches before a final "\n"
]
LABEL_VALUE_GOOD = ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", "a" * 63, ""]
LABEL_VALUE_BAD = ["nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad",
                   "-starts-with-dash", "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", "a" * 64,
                   "abc\n"]


@pytest.mark.parametrize("value", DNS1123_LABEL_GOOD)
def test_is_dns1123_label_good(value: str) -> None:
    assert is_dns1123_label(value) == []


@pytest.mark.parametrize("value", DNS1123_LABEL_BAD)
def test_is_dns1123_label_bad(value: str) -> None:
    assert is_dns1123_label(value)


@pytest.mark.parametrize("value", DNS1123_SUBDOMAIN_GOOD)
def test_is_dns1123_subdomain_good(value: str) -> None:
    assert is_dns1123_subdomain(value) == []


@pytest.mark.parametrize("value", DNS1123_SUBDOMAIN_BAD)
def test_is_dns1123_subdomain_bad(value: str) -> None:
    assert is_dns1123_subdomain(value)


@pytest.mark.parametrize("value", DNS1035_GOOD)
def test_is_dns1035_label_good(value: str) -> None:
    assert is_dns1035_label(value) == []


@pytest.mark.parametrize("value", DNS1035_BAD)
def test_is_dns1035_label_bad(value: str) -> None:
    assert is_dns1035_label(value)


@pytest.mark.parametrize("check", [is_qualified_name, label_key_errors])
@pytest.mark.parametrize("value", QUALIFIED_GOOD)
def test_is_qualified_name_good(value: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(value) == []


@pytest.mark.parametrize("check", [is_qualified_name, label_key_errors])
@pytest.mark.parametrize("value", QUALIFIED_BAD)
def test_is_qualified_name_bad(value: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(value)


@pytest.mark.parametrize("check", [is_valid_label_value, label_value_errors])
@pytest.mark.parametrize("value", LABEL_VALUE_GOOD)
def test_is_valid_label_value_good(value: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(value) == []


@pytest.mark.parametrize("check", [is_valid_label_value, label_value_errors])
@pytest.mark.parametrize("value", LABEL_VALUE_BAD)
def test_is_valid_label_value_bad(value: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(value)


KEY_REGEX = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
SUBDOMAIN_REGEX = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
    "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
VALUE_REGEX = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
               "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
               "'my_value',  or '12345', regex used for validation is "
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")


# content.IsLabelKey (pkg/api/validate/content/kube.go), message by message
@pytest.mark.parametrize(("key", "messages"), [
    ("only/one/slash", ["a valid label key " + KEY_REGEX
                        + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]),
    ("example.com/", ["name part must be non-empty", "name part " + KEY_REGEX]),
    ("/simple", ["prefix part must be non-empty"]),
    ("a" * 64, ["name part must be no more than 63 bytes"]),
    ("a" * 63 + "-", ["name part must be no more than 63 bytes", "name part " + KEY_REGEX]),
    ("a" * 254 + "/abc", ["prefix part must be no more than 253 bytes"]),
    ("Example.com/abc", ["prefix part " + SUBDOMAIN_REGEX]),
    ("é" * 32, ["name part must be no more than 63 bytes", "name part " + KEY_REGEX]),  # 64 bytes
])
def test_is_label_key_messages(key: str, messages: list[str]) -> None:
    assert is_qualified_name(key) == messages
    assert label_key_errors(key) == messages


# content.IsLabelValue: the length is counted in bytes and reported as such
@pytest.mark.parametrize(("value", "messages"), [
    ("a" * 64, ["must be no more than 63 bytes"]),
    ("a" * 63 + "-", ["must be no more than 63 bytes", VALUE_REGEX]),
    ("é" * 32, ["must be no more than 63 bytes", VALUE_REGEX]),
    ("-a", [VALUE_REGEX]),
])
def test_is_label_value_messages(value: str, messages: list[str]) -> None:
    assert is_valid_label_value(value) == messages
    assert label_value_errors(value) == messages


def test_object_names_keep_the_characters_message() -> None:
    # util/validation's own IsDNS1123Subdomain/Label (object names) still say "characters"
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]
