"""What a model call costs: a price table the user gives, and one call's tokens priced by it.

Prices are USD per million tokens, held as the `Decimal` written (0.40 is 0.40, not the binary
fraction nearest it), and every sum is exact: arithmetic runs in a context wide enough that
nothing rounds, and one that would round raises instead of hiding it. Only a message rounds,
to six places.

A call is priced by the entry named exactly by its model, else by the longest prefix entry
(`gpt-4.1-mini*`) the model starts with. Nothing else matches: `gpt-4.1-mini` does not price
`gpt-4.1-mini-2025-04-14`, but the message that says the call has no price names the near
miss. No table is built in: prices change, and a stale one would judge silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import (
    ROUND_HALF_UP,
    Context,
    Decimal,
    Inexact,
    InvalidOperation,
    Overflow,
    Rounded,
)
from typing import NamedTuple

from tracecheck.naming import quote
from tracecheck.spans import TokenUsage

__all__ = [
    "EXACT",
    "ModelPrice",
    "Prices",
    "TokenCounts",
    "Unpriced",
    "added",
    "call_cost",
    "token_counts",
    "usd",
]

# 200 digits hold any product and sum of finite counts and prices exactly; past that a
# rounding would be an error, never a silent change (`Inexact` and `Rounded` are trapped).
EXACT = Context(prec=200, traps=[Inexact, Rounded, InvalidOperation, Overflow])
MILLION = 1_000_000
PREFIX = "*"
_SIX_PLACES = Decimal("0.000001")

Amount = int | Decimal  # a token count: an int, or the exact decimal of a fractional count


class Unpriced(Exception):
    """A call that cannot be priced, and why (a clause: `records no output token count`)."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens of one model, or of every model whose name starts with a prefix
    (`model` ends in `*`). A cache price left out is unknown, not zero."""

    model: str
    input: Decimal
    output: Decimal
    cache_read: Decimal | None = None
    cache_write: Decimal | None = None

    @property
    def is_prefix(self) -> bool:
        return self.model.endswith(PREFIX)


@dataclass(frozen=True)
class Prices:
    """A price table: the entries as given, the file they were read from (None for a
    contract's own `prices` or a table built in Python), and how messages name the table."""

    models: tuple[ModelPrice, ...]
    source: str | None = None
    described: str = "the contract's prices"
    _exact: dict[str, ModelPrice] = field(init=False, repr=False, compare=False)
    _prefixes: tuple[ModelPrice, ...] = field(init=False, repr=False, compare=False)
    # Each model name looked up so far: a run names few models in many calls.
    _found: dict[str, ModelPrice | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        exact = {price.model: price for price in self.models if not price.is_prefix}
        # Longest first: the most specific prefix wins (`gpt-4.1-mini*` over `gpt-4.1*`).
        prefixes = sorted(
            (price for price in self.models if price.is_prefix), key=lambda p: -len(p.model)
        )
        object.__setattr__(self, "_exact", exact)
        object.__setattr__(self, "_prefixes", tuple(prefixes))
        object.__setattr__(self, "_found", {})

    def __reduce__(self) -> tuple[object, ...]:  # the indexes are rebuilt, not pickled
        return Prices, (self.models, self.source, self.described)

    def price_of(self, model: str) -> ModelPrice | None:
        """The entry that prices `model`: its exact name, else the longest matching prefix."""
        try:
            return self._found[model]
        except KeyError:
            found = self._exact.get(model)
            if found is None:
                found = next((p for p in self._prefixes if model.startswith(p.model[:-1])), None)
            self._found[model] = found
            return found

    def missing(self, model: str) -> str:
        """Why `model` has no price, naming the entry it was probably meant to match."""
        said = f"calls model {quote(model)}, which has no price in {self.described}"
        near = sorted((name for name in self._exact if model.startswith(name)), key=len)
        if near:
            name = near[-1]
            said += (
                f" ({quote(name)} prices that exact name only; {quote(name + PREFIX)} would "
                "price every model whose name starts with it)"
            )
        return said


class TokenCounts(NamedTuple):
    """Tokens by price: input neither read from nor written to the cache, cache reads, cache
    writes, output."""

    fresh: Amount
    cache_read: Amount
    cache_write: Amount
    output: Amount


def token_counts(tokens: TokenUsage) -> TokenCounts:
    """A call's tokens split by price, or `Unpriced` when they are not all known.

    Input holds the cache counts for the OpenTelemetry convention and not for Anthropic's;
    `cache_outside_input` is the part of the cache counts recorded beside input, so the cache
    counts inside input are the rest, and the fresh input is input less those. A total the
    producer recorded above input + output + the cache beside them holds tokens of no known
    kind (thoughts a producer left out of output, say): they cannot be priced.
    """
    if tokens.input is None:
        raise Unpriced("records no input token count")
    if tokens.output is None:
        raise Unpriced("records no output token count")
    entered = _exact(tokens.input)
    output = _exact(tokens.output)
    read = _exact(tokens.cache_read or 0)
    write = _exact(tokens.cache_write or 0)
    beside = _exact(tokens.cache_outside_input)
    inside = _minus(_plus(read, write), beside)
    fresh = _minus(entered, inside)
    if fresh < 0:
        raise Unpriced(f"records {_text(inside)} cache tokens inside an input of {_text(entered)}")
    if tokens.recorded_total is not None:
        extra = _minus(_exact(tokens.recorded_total), _plus(_plus(entered, output), beside))
        if extra > 0:
            raise Unpriced(
                f"records a total of {_text(_exact(tokens.recorded_total))} tokens, "
                f"{_text(extra)} more than its input, output and cache counts: tokens of no "
                "known kind, which no price covers"
            )
    return TokenCounts(fresh, read, write, output)


def added(left: TokenCounts, right: TokenCounts) -> TokenCounts:
    """Two calls' tokens together (what one price charges for both)."""
    return TokenCounts(
        _plus(left.fresh, right.fresh),
        _plus(left.cache_read, right.cache_read),
        _plus(left.cache_write, right.cache_write),
        _plus(left.output, right.output),
    )


def check_cache_prices(counts: TokenCounts, price: ModelPrice) -> None:
    """`Unpriced` when the call reads or writes the cache and the entry has no price for it:
    either guess (the input price, zero) could under-count."""
    if counts.cache_read and price.cache_read is None:
        raise Unpriced(_no_cache_price("reads", counts.cache_read, price, "cacheRead"))
    if counts.cache_write and price.cache_write is None:
        raise Unpriced(_no_cache_price("writes", counts.cache_write, price, "cacheWrite"))


def _no_cache_price(verb: str, count: Amount, price: ModelPrice, key: str) -> str:
    return (
        f"{verb} {_text(count)} cache tokens, and the price of {quote(price.model)} gives no {key}"
    )


def call_cost(counts: TokenCounts, price: ModelPrice) -> Decimal:
    """USD for these tokens at this price, exactly (`check_cache_prices` first)."""
    check_cache_prices(counts, price)
    parts = (
        EXACT.multiply(counts.fresh, price.input),
        EXACT.multiply(counts.cache_read, price.cache_read or 0),
        EXACT.multiply(counts.cache_write, price.cache_write or 0),
        EXACT.multiply(counts.output, price.output),
    )
    return EXACT.divide(total_cost(parts), MILLION)


def total_cost(amounts: Iterable[Decimal]) -> Decimal:
    """A sum of amounts, exactly."""
    total = Decimal(0)
    for amount in amounts:
        total = EXACT.add(total, amount)
    return total


def usd(amount: Decimal, *, exact: bool = False) -> str:
    """`$0.000258`: rounded to six places, trailing zeros dropped; `exact` keeps every digit
    (for a total that rounds to the very limit it is over)."""
    shown = amount if exact else amount.quantize(_SIX_PLACES, rounding=ROUND_HALF_UP)
    return "$" + format(shown.normalize(), "f")


def _exact(count: int | float | Decimal) -> Amount:
    """A count as an exact number: an int as it is, a float as the decimal it prints as."""
    if count.__class__ is int and count >= 0:
        return count
    if isinstance(count, bool) or not isinstance(count, int | float | Decimal):
        raise Unpriced("records a token count that is not a number")
    value = count if isinstance(count, Decimal) else Decimal(repr(count))
    if not value.is_finite() or value < 0:
        raise Unpriced("records a token count that is not a finite number ≥ 0")
    return int(value) if value == value.to_integral_value() else value


def _plus(left: Amount, right: Amount) -> Amount:
    if left.__class__ is int and right.__class__ is int:
        return left + right
    return EXACT.add(left, right)


def _minus(left: Amount, right: Amount) -> Amount:
    if left.__class__ is int and right.__class__ is int:
        return left - right
    return EXACT.subtract(left, right)


def _text(count: Amount) -> str:
    return str(count) if isinstance(count, int) else format(count.normalize(), "f")
