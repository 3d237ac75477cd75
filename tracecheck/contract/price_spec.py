"""A price table as a contract's `prices` or a prices file writes it, checked strictly.

A table maps a model name to its prices in USD per million tokens:

```yaml
gpt-4.1-mini*: {input: 0.40, output: 1.60, cacheRead: 0.10}
claude-sonnet-4-5: {input: 3, output: 15, cacheRead: 0.30, cacheWrite: 3.75}
```

A name ending in `*` prices every model whose name starts with the rest (dated variants). Every
problem is reported at its place: unknown keys with the closest allowed one, a missing input or
output price, a price that is negative or not a number. `usd_amount` also reads the USD limit
`llm.maxCostUsd` (section_spec.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from tracecheck.contract.checker import Checker
from tracecheck.contract.words import describe, map_path
from tracecheck.rules.pricing import PREFIX, ModelPrice, Prices

__all__ = ["CONTRACT_PRICES", "PRICE_KEYS", "PRICE_REQUIRED", "price_table", "usd_amount"]

PRICE_KEYS = ("input", "output", "cacheRead", "cacheWrite")
PRICE_REQUIRED = ("input", "output")
CONTRACT_PRICES = "the contract's prices"


def usd_amount(checker: Checker, value: Any, where: str, what: str = "USD") -> Decimal | None:
    """A finite number ≥ 0 as the exact decimal written (a float by its shortest repr)."""
    if isinstance(value, Decimal) and value.is_finite() and value >= 0:
        return value  # given in Python
    if isinstance(value, int | float) and not isinstance(value, bool):
        if isinstance(value, float) and not math.isfinite(value):
            checker.add(where, f"must be a finite number ≥ 0 ({what}), not {describe(value)}")
            return None
        if value >= 0:
            return Decimal(value) if isinstance(value, int) else Decimal(repr(value))
    checker.add(where, f"must be a number ≥ 0 ({what}), not {describe(value)}")
    return None


def price_table(
    checker: Checker,
    value: Any,
    where: str,
    *,
    source: str | None = None,
    described: str = CONTRACT_PRICES,
) -> Prices | None:
    """The table at `where`, or None with every problem added to `checker`."""
    if not isinstance(value, Mapping):
        checker.add(where, f"must be an object of model name → prices, not {describe(value)}")
        return None
    if not value:
        checker.add(where, "must name at least one model: an empty table prices nothing")
        return None
    found: list[ModelPrice] = []
    ok = True
    for model, entry in value.items():
        price = _model_price(checker, model, entry, where)
        ok = ok and price is not None
        if price is not None:
            found.append(price)
    return Prices(tuple(found), source, described) if ok else None


def _model_price(checker: Checker, model: Any, entry: Any, where: str) -> ModelPrice | None:
    if not isinstance(model, str) or not model:
        checker.add(where, f"a model name must be a non-empty string, not {describe(model)}")
        return None
    at = map_path(where, model)
    name_ok = PREFIX not in model[:-1]
    if not name_ok:
        checker.add(at, f"a model name may hold one {PREFIX}, at its end (a prefix of names)")
    fields = checker.obj(entry, at, PRICE_KEYS, required=PRICE_REQUIRED)
    if fields is None:
        return None
    amounts = {
        key: usd_amount(checker, fields[key], f"{at}.{key}", "USD per million tokens")
        for key in PRICE_KEYS
        if key in fields
    }
    if not name_ok or any(key not in amounts or amounts[key] is None for key in PRICE_REQUIRED):
        return None
    if any(amount is None for amount in amounts.values()):
        return None
    input_price, output_price = amounts["input"], amounts["output"]
    assert input_price is not None and output_price is not None
    return ModelPrice(
        model, input_price, output_price, amounts.get("cacheRead"), amounts.get("cacheWrite")
    )
