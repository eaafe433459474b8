"""Label selector strings (kubectl -l), ported from apimachinery's labels/selector_test.go."""

from __future__ import annotations

import pytest

from kwhatif.api.labels import parse_selector


@pytest.mark.parametrize(
    "text, rendered",
    [
        pytest.param("x=a,y=b,z=c", "x=a,y=b,z=c", id="equals"),
        pytest.param("", "", id="empty"),
        pytest.param("x!=a,y=b", "x!=a,y=b", id="not-equals"),
        pytest.param("x=", "x=", id="empty-value"),
        pytest.param("x= ", "x=", id="empty-value-space"),
        pytest.param("x=,z= ", "x=,z=", id="two-empty-values"),
        pytest.param("!x", "!x", id="does-not-exist"),
        pytest.param("x>1", "x>1", id="gt"),
        pytest.param("x>1,z<5", "x>1,z<5", id="gt-lt"),
        pytest.param("x=a,a=x", "a=x,x=a", id="sorted-by-key"),
        pytest.param("\rx", "x", id="carriage-return"),
        pytest.param("foo  in\t (abc)", "foo=abc", id="whitespace"),
        pytest.param("x  notin\t\t\t(abc,def)", "x notin (abc,def)", id="notin-tabs"),
        pytest.param("x in (abc,)", "x in (,abc)", id="trailing-comma-value"),
        pytest.param("x in ()", "x=", id="empty-set"),
        pytest.param(
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            "this-is-another-dns.domain.com/key-with-dash in (so,what)",
            id="prefixed-key",
        ),
        pytest.param("notin=in", "notin=in", id="keywords-as-key-and-value"),
    ],
)
def test_good_selectors(text, rendered):
    assert parse_selector(text).render() == rendered


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param("x=a||y=b", 'unable to parse requirement: Invalid value: "a||y"', id="or"),
        pytest.param("x==a==b", "found '==', expected: ',' or 'end of string'", id="double-equals-twice"),
        pytest.param("!x=a", "found '=', expected: ',' or 'end of string'", id="not-with-value"),
        pytest.param(
            "x<a",
            "unable to parse requirement: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer",
            id="lt-not-integer",
        ),
        pytest.param("x in y", "unable to parse requirement: found 'y' expected: '('", id="in-without-parens"),
        pytest.param("x,", "found '', expected: identifier after ','", id="trailing-comma"),
        pytest.param(
            "x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt", id="no-operator"
        ),
        pytest.param(
            "a b/c=d",
            "unable to parse requirement: found 'b/c', expected: in, notin, =, ==, !=, gt, lt",
            id="space-in-key",
        ),
        pytest.param("_x=a", 'unable to parse requirement: Invalid value: "_x"', id="bad-key"),
    ],
)
def test_bad_selectors(text, message):
    with pytest.raises(ValueError) as e:
        parse_selector(text)
    assert str(e.value).startswith(message)


@pytest.mark.parametrize(
    "text, labels, match",
    [
        pytest.param("", {"x": "y"}, True, id="empty-matches-all"),
        pytest.param("x=y,z=w", {"x": "y", "z": "w"}, True, id="both"),
        pytest.param("x!=y,z!=w", {"x": "z", "z": "a"}, True, id="neither"),
        pytest.param("x", {"x": "z"}, True, id="exists"),
        pytest.param("!x", {"y": "z"}, True, id="absent"),
        pytest.param("x>1", {"x": "2"}, True, id="gt"),
        pytest.param("x<1", {"x": "0"}, True, id="lt"),
        pytest.param("x=z", {}, False, id="missing"),
        pytest.param("x=y,z=w", {"x": "w", "z": "w"}, False, id="one-wrong"),
        pytest.param("x!=y,z!=w", {"x": "z", "z": "w"}, False, id="not-equal-fails"),
        pytest.param("!x", {"x": "z"}, False, id="present"),
        pytest.param("x>1", {"x": "0"}, False, id="gt-fails"),
        pytest.param("z>1", {"z": "v2"}, False, id="gt-not-integer"),
        pytest.param("foo=bar,foobar=bar,baz=blah", {"foo": "bar", "baz": "blah"}, False, id="extra-requirement"),
    ],
)
def test_matching(text, labels, match):
    assert parse_selector(text).matches(labels) is match
