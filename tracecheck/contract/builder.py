"""Writing a contract document in Python: the keys of a contract and of its paths, as calls.

```python
contract = (
    Contract.builder("refund-desk")
    .describe("Answer refund questions without a shell")
    .run(require_completed=True)
    .tools(required=["Read"], forbidden=["Bash"])
    .never(kind="TOOL", tool="Bash", label="no shell")
    .precedes(a={"tool": "Read"}, b={"tool": "Write"}, order="finish-before-start")
    .build()
)
```

Keyword names are the document's keys in snake_case; a predicate is given as keywords
(`kind`, `name`, `tool`, `model`, `attr`, `not_`) or, for `precedes`/`never_unless`, as a
document dict. A low-level rule without `label` is labelled `<kind>(<predicate>)`.

`build` is `ContractBuilder`'s (model.py): it compiles the document written, so a built contract
holds exactly the rule objects the compiler makes from the same document.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self

from tracecheck.contract.spec import parse_spec
from tracecheck.rules.presence import Always

__all__ = ["DocumentBuilder", "PathBuilder"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _keys(values: Mapping[str, Any]) -> dict[str, Any]:
    return {_camel(key): copy.deepcopy(value) for key, value in values.items() if value is not None}


def _predicate(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {("not" if key == "not_" else key): value for key, value in fields.items()}


def _describe(predicate: Mapping[str, Any]) -> str:
    """The predicate's description, for a default label (`?` when it is invalid: the
    compiler reports it)."""
    rule = {"kind": "always", "label": "-", "p": dict(predicate)}
    spec, _ = parse_spec({"name": "-", "rules": [rule]})
    parsed = spec.base.rules[0].rule if spec is not None and spec.base.rules else None
    return parsed.p.describe() if isinstance(parsed, Always) else "?"


class PathBuilder:
    """The keys of one path: `run`, `tools`, `llm`, `retries` and low-level `rules`."""

    def __init__(self) -> None:
        self._doc: dict[str, Any] = {}

    # --- keys (§2.1) ----------------------------------------------------------------------

    def _merge(self, key: str, values: Mapping[str, Any]) -> Self:
        self._doc.setdefault(key, {}).update(_keys(values))
        return self

    def run(
        self,
        *,
        require_completed: bool | None = None,
        allowed_statuses: Sequence[str] | None = None,
        max_duration_ms: float | None = None,
    ) -> Self:
        values = {
            "require_completed": require_completed,
            "allowed_statuses": allowed_statuses,
            "max_duration_ms": max_duration_ms,
        }
        return self._merge("run", values)

    def tools(
        self,
        *,
        required: Sequence[str] | None = None,
        forbidden: Sequence[str] | None = None,
        allowed: Sequence[str] | None = None,
        max_calls: int | None = None,
        max_calls_per_tool: Mapping[str, int] | None = None,
        required_order: Sequence[str] | None = None,
        order_mode: str | None = None,
        arguments: Sequence[Mapping[str, Any]] | None = None,
        enforced: bool | None = None,
    ) -> Self:
        values = {
            "required": required,
            "forbidden": forbidden,
            "allowed": allowed,
            "max_calls": max_calls,
            "max_calls_per_tool": max_calls_per_tool,
            "required_order": required_order,
            "order_mode": order_mode,
            "arguments": arguments,
            "enforced": enforced,
        }
        return self._merge("tools", values)

    def llm(
        self,
        *,
        max_calls: int | None = None,
        max_total_tokens: int | None = None,
        allowed_models: Sequence[str] | None = None,
        max_cost_usd: float | None = None,
    ) -> Self:
        values = {
            "max_calls": max_calls,
            "max_total_tokens": max_total_tokens,
            "allowed_models": allowed_models,
            "max_cost_usd": max_cost_usd,
        }
        return self._merge("llm", values)

    def retries(
        self,
        *,
        reads: Sequence[str] | None = None,
        writes: Sequence[str | Mapping[str, Any]] | None = None,
    ) -> Self:
        """`writes` entries are tool names or `{"tool": …, "idempotencyKey": …}`."""
        entries = None
        if writes is not None:
            entries = [{"tool": w} if isinstance(w, str) else dict(w) for w in writes]
        return self._merge("retries", {"reads": reads, "writes": entries})

    # --- low-level rules (§3.2) -----------------------------------------------------------

    def _rule(self, kind: str, label: str | None, describe: str, **keys: Any) -> Self:
        rule = {"kind": kind, "label": label or f"{kind}({describe})"}
        rule.update({key: copy.deepcopy(value) for key, value in keys.items() if value is not None})
        self._doc.setdefault("rules", []).append(rule)
        return self

    def always(self, *, label: str | None = None, **p: Any) -> Self:
        return self._rule("always", label, _describe(_predicate(p)), p=_predicate(p))

    def never(self, *, label: str | None = None, **p: Any) -> Self:
        return self._rule("never", label, _describe(_predicate(p)), p=_predicate(p))

    def eventually(self, *, label: str | None = None, **p: Any) -> Self:
        return self._rule("eventually", label, _describe(_predicate(p)), p=_predicate(p))

    def precedes(
        self,
        *,
        a: Mapping[str, Any],
        b: Mapping[str, Any],
        order: str | None = None,
        label: str | None = None,
    ) -> Self:
        shown = f"{_describe(a)}, {_describe(b)}"
        return self._rule("precedes", label, shown, a=dict(a), b=dict(b), order=order)

    def never_unless(
        self,
        *,
        p: Mapping[str, Any],
        prior: Mapping[str, Any],
        order: str | None = None,
        label: str | None = None,
    ) -> Self:
        shown = f"{_describe(p)}, {_describe(prior)}"
        return self._rule("neverUnless", label, shown, p=dict(p), prior=dict(prior), order=order)

    def at_most(self, max: int, *, label: str | None = None, **p: Any) -> Self:
        shown = f"{_describe(_predicate(p))}, {max}"
        return self._rule("atMost", label, shown, p=_predicate(p), max=max)

    def tokens_at_most(self, max: int, *, label: str | None = None, **p: Any) -> Self:
        shown = f"{_describe(_predicate(p))}, {max}"
        return self._rule("tokensAtMost", label, shown, p=_predicate(p), max=max)

    def argument(
        self,
        *,
        p: Mapping[str, Any],
        pointer: str,
        check: Mapping[str, Any],
        occurrence: str | None = None,
        label: str | None = None,
    ) -> Self:
        shown = f"{_describe(p)} {pointer or '(whole value)'} {check.get('op')}"
        return self._rule(
            "argument",
            label,
            shown,
            p=dict(p),
            pointer=pointer,
            check=dict(check),
            occurrence=occurrence,
        )

    def to_spec(self) -> dict[str, Any]:
        """The document written so far."""
        return copy.deepcopy(self._doc)


class DocumentBuilder(PathBuilder):
    """A whole contract's document: a name, a description, a scope, the base path and
    alternatives (`ContractBuilder`, model.py, compiles it)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._head: dict[str, Any] = {"name": name}
        self._alternatives: list[dict[str, Any]] = []

    def describe(self, description: str) -> Self:
        self._head["description"] = description
        return self

    def capture(self, mode: str) -> Self:
        """`strict` (the default) or `lenient`: how doubt about capture weighs on the rules."""
        self._head["capture"] = mode
        return self

    def scope(self, **root: Any) -> Self:
        self._head["scope"] = {"root": _predicate(root)}
        return self

    def prices(self, table: Mapping[str, Mapping[str, Any]]) -> Self:
        """The contract's price table: model name → `input`, `output`, `cache_read`,
        `cache_write` (USD per million tokens), for `llm(max_cost_usd=...)`."""
        self._head["prices"] = {model: _keys(entry) for model, entry in table.items()}
        return self

    def alternative(self, id: str, build: Callable[[PathBuilder], PathBuilder]) -> Self:
        """An alternative path: `build` receives a fresh `PathBuilder` and returns it."""
        self._alternatives.append({"id": id, **build(PathBuilder()).to_spec()})
        return self

    def to_spec(self) -> dict[str, Any]:
        doc = {**copy.deepcopy(self._head), **super().to_spec()}
        if self._alternatives:
            doc["alternatives"] = {"anyOf": copy.deepcopy(self._alternatives)}
        return doc
