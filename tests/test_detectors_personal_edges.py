"""Edges of the personal-data validators (personal.py): e-mail hosts and file names, E.164 numbers
outside North America, IBAN lengths, and card numbers written as JSON numbers of either type.

Card numbers and IBANs are computed at run time (Luhn and ISO 7064 check digits), so no
contiguous number a scanner would flag appears in this file. All of them are fake.
"""

from __future__ import annotations

import pytest

from redact.detectors import detector
from redact.detectors.personal import equals_a_card_number, is_card_number


def found(detector_id: str, text: str) -> bool:
    return detector(detector_id).search(text)


def luhn_completed(head: str) -> str:
    """`head` and the check digit that makes it pass the Luhn test."""
    for check in "0123456789":
        digits = [int(c) for c in reversed(head + check)]
        doubled = [d * 2 - 9 if d > 4 else d * 2 for d in digits[1::2]]
        if (sum(digits[::2]) + sum(doubled)) % 10 == 0:
            return head + check
    raise AssertionError(head)


def iban(country: str, bban: str) -> str:
    """An IBAN with the check digits ISO 7064 (mod 97-10) gives `bban`."""
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    return f"{country}{98 - int(numeric) % 97:02d}{bban}"


def grouped(compact: str) -> str:
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


# ----------------------------------------------------------------------------- e-mail


@pytest.mark.parametrize(
    ("text", "email"),
    [
        ("mail jane@mail.example.md today", True),
        ("img src=logo@cdn.site.png", False),
        ("see@docs.README.md", False),
        ("notes@docs.readme.md", True),
        ("src\\jobs@build.sh", False),
        ("src/jobs@build.sh", False),
        ("write to jobs@build.sh", True),
    ],
)
def test_email_host_and_file_names(text: str, email: bool) -> None:
    assert found("email", text) is email


# ----------------------------------------------------------------------------- phone


@pytest.mark.parametrize(
    ("number", "person"),
    [
        ("+14158675309", True),
        ("+18005551234", False),
        # Outside North America `866` is no toll-free code (a Polish mobile number).
        ("+48661234567", True),
        ("+1 800 555 1234", True),
    ],
)
def test_e164_service_areas_are_north_american_only(number: str, person: bool) -> None:
    assert found("phone", f"call {number} now") is person


# ----------------------------------------------------------------------------- IBAN


def test_iban_of_15_characters_is_found() -> None:
    norwegian = iban("NO", "86011117947")
    assert len(norwegian) == 15
    assert found("iban", f"IBAN {norwegian}")


def test_iban_of_34_characters_is_found() -> None:
    longest = iban("GB", "ABCD" + "1234567890" * 2 + "123456")
    assert len(longest) == 34
    assert found("iban", f"IBAN {longest}")


@pytest.mark.parametrize("length", [12, 13, 14, 35])
def test_grouped_iban_shape_of_an_impossible_length_is_not_one(length: int) -> None:
    number = iban("DE", ("3704004405" * 4)[: length - 4])
    assert len(number) == length
    assert not found("iban", f"IBAN {grouped(number)}")


# ----------------------------------------------------------------------------- card numbers


def _card() -> int:
    return int(luhn_completed("411111111111111"))


def _int_card_whose_float_is_not() -> int:
    # 4000000000000005120 is a card; as a float JavaScript writes it 4000000000000005000.
    return int(luhn_completed("400000000000000512"))


def _int_whose_float_is_a_card() -> int:
    # 4242061413842535936 is no card; its float is written 4242061413842536000, which is.
    return int("4242061413842535" + "936")


def test_card_pairs_are_what_their_comments_say() -> None:
    assert _int_card_whose_float_is_not() == 4 * 10**18 + 5120
    assert is_card_number(_int_card_whose_float_is_not())
    assert not is_card_number(float(_int_card_whose_float_is_not()))
    assert not is_card_number(_int_whose_float_is_a_card())


def test_a_whole_float_card_number_is_a_card() -> None:
    assert is_card_number(float(_card()))


def test_a_float_card_written_with_an_exponent_is_a_card() -> None:
    number = float(_int_whose_float_is_a_card())
    assert "e" in repr(number)
    assert is_card_number(number)


def test_a_fraction_is_no_card() -> None:
    assert not is_card_number(1_500_000_000_000.5)
    assert not is_card_number(_card() / 8)


def test_a_card_number_equals_a_card_number() -> None:
    assert equals_a_card_number(_card())
    assert equals_a_card_number(_int_card_whose_float_is_not())


def test_a_float_equals_a_card_number_when_its_integer_is_one() -> None:
    assert equals_a_card_number(float(_int_card_whose_float_is_not()))


def test_an_integer_equals_a_card_number_when_its_float_is_one() -> None:
    assert equals_a_card_number(_int_whose_float_is_a_card())


@pytest.mark.parametrize(
    "value",
    [
        42,
        10**20,
        1_500_000_000_000,
        1_500_000_000_000.0,
        1_500_000_000_000.5,
        True,
        None,
    ],
)
def test_other_values_equal_no_card_number(value: object) -> None:
    assert not equals_a_card_number(value)


def test_a_card_number_written_as_text_equals_no_card_number() -> None:
    assert not equals_a_card_number(str(_card()))


def test_a_negative_card_number_equals_no_card_number() -> None:
    assert not equals_a_card_number(-_card())
    assert not equals_a_card_number(float(-_card()))
