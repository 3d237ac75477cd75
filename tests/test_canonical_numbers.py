"""A number's canonical text (ECMAScript's Number::toString, as RFC 8785 writes numbers) is
read from the double's shortest repr: property-tested against `decimal`'s reading of the same
repr, which the implementation once used."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from tracecheck.rules.canonical import canonical_number

doubles = st.floats(allow_nan=False, allow_infinity=False)


@given(doubles)
def test_the_text_is_the_value_of_the_shortest_repr(number: float) -> None:
    text = canonical_number(number)
    assert Decimal(text) == Decimal(repr(number))
    assert float(text) == number


@given(doubles.filter(lambda number: number != 0))
def test_the_text_holds_the_shortest_digits_and_no_more(number: float) -> None:
    _sign, digits, _exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    mantissa = canonical_number(number).lstrip("-").partition("e")[0]
    assert mantissa.replace(".", "").strip("0") == "".join(map(str, digits))


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_an_exact_integer_is_its_digits(number: int) -> None:
    assert canonical_number(number) == str(number)
    # Below 10^21 a whole double is written without an exponent: 2.0 is "2".
    assert canonical_number(float(number)) == str(number)
