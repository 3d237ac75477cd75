"""The high-level sections of a contract path: `run`, `tools`, `llm` and `retries` (§2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from tracecheck.contract.limits_spec import DurationLimit, LimitsChecker
from tracecheck.contract.matcher_spec import (
    JSON_TYPES,
    MATCHER_CHECKS,
    MATCHER_OPTIONS,
    MatcherChecker,
    RequiresSpec,
)
from tracecheck.contract.words import describe, map_path
from tracecheck.naming import quote
from tracecheck.rules.argument import ArgumentCheck
from tracecheck.rules.base import Occurrence
from tracecheck.rules.ordering import OrderMode
from tracecheck.rules.retry import WriteTool

if TYPE_CHECKING:
    from decimal import Decimal

__all__ = [
    "ARGUMENT_CHECKS",
    "ARGUMENT_KEYS",
    "JSON_TYPES",
    "LLM_KEYS",
    "OCCURRENCES",
    "ORDER_MODES",
    "RETRIES_KEYS",
    "RUN_KEYS",
    "RUN_STATUSES",
    "TOOLS_KEYS",
    "WRITE_KEYS",
    "ArgumentSpec",
    "LlmSpec",
    "RetriesSpec",
    "RunSpec",
    "SectionChecker",
    "ToolsSpec",
]

RUN_KEYS = ("requireCompleted", "allowedStatuses", "maxDurationMs")
TOOLS_KEYS = (
    "required",
    "forbidden",
    "allowed",
    "maxCalls",
    "maxCallsPerTool",
    "requiredOrder",
    "orderMode",
    "arguments",
    "requires",
    "enforced",
    "durations",
)
LLM_KEYS = ("maxCalls", "maxTotalTokens", "allowedModels", "maxCostUsd")
RETRIES_KEYS = ("reads", "writes")
WRITE_KEYS = ("tool", "idempotencyKey")
ARGUMENT_CHECKS = MATCHER_CHECKS
ARGUMENT_KEYS = ("tool", "pointer", "occurrence", *ARGUMENT_CHECKS, *MATCHER_OPTIONS)
RUN_STATUSES = ("running", "completed", "failed", "aborted")
ORDER_MODES: tuple[OrderMode, ...] = ("start-order", "finish-before-start", "all-occurrences")
OCCURRENCES = ("first", "last", "any", "all")


# The parsed sections are named tuples, not frozen dataclasses: they live only inside the
# compiler and lint, immutable and compared by value either way, and a frozen dataclass costs
# five times as much to create when the module is imported (every `check` imports this one;
# bench/README.md, "Command start-up").
class RunSpec(NamedTuple):
    require_completed: bool | None = None
    allowed_statuses: tuple[str, ...] | None = None
    max_duration_ms: float | None = None


@dataclass(frozen=True)  # a dataclass: a named tuple's `index` is tuple.index
class ArgumentSpec:
    index: int
    tool: str
    pointer: str
    check: ArgumentCheck
    occurrence: Occurrence = "all"


class ToolsSpec(NamedTuple):
    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    allowed: tuple[str, ...] | None = None
    max_calls: int | None = None
    max_calls_per_tool: tuple[tuple[str, int], ...] = ()
    required_order: tuple[str, ...] = ()
    order_mode: OrderMode | None = None
    arguments: tuple[ArgumentSpec, ...] = ()
    enforced: bool = False
    requires: tuple[RequiresSpec, ...] = ()
    durations: tuple[DurationLimit, ...] = ()


class LlmSpec(NamedTuple):
    max_calls: int | None = None
    max_total_tokens: int | None = None
    allowed_models: tuple[str, ...] = ()
    max_cost_usd: Decimal | None = None  # priced by the contract's or the check's prices


class RetriesSpec(NamedTuple):
    reads: tuple[str, ...] = ()
    writes: tuple[WriteTool, ...] = ()


class SectionChecker(MatcherChecker, LimitsChecker):
    """Checks the `run`, `tools`, `llm` and `retries` sections (run and retrySafe rules too)."""

    # --- run ------------------------------------------------------------------------------

    def run(self, value: Any, where: str, *, what: str = "run rule") -> RunSpec | None:
        run = self.obj(value, where, RUN_KEYS)
        if run is None:
            return None
        if not any(key in run for key in RUN_KEYS):
            self.add(
                where,
                f"{what} checks nothing: give requireCompleted, allowedStatuses or maxDurationMs",
            )
            return None
        spec = RunSpec(
            self.boolean(run["requireCompleted"], f"{where}.requireCompleted")
            if "requireCompleted" in run
            else None,
            self.names(run["allowedStatuses"], f"{where}.allowedStatuses", choices=RUN_STATUSES)
            if "allowedStatuses" in run
            else None,
            self.positive(run["maxDurationMs"], f"{where}.maxDurationMs")
            if "maxDurationMs" in run
            else None,
        )
        if spec == RunSpec():
            return None  # every key was invalid: reported already
        return spec

    # --- tools ----------------------------------------------------------------------------

    def tools(self, value: Any, where: str) -> ToolsSpec | None:
        tools = self.obj(value, where, TOOLS_KEYS)
        if tools is None:
            return None

        def get(key: str, parse: Any) -> Any:
            return parse(tools[key], f"{where}.{key}") if key in tools else None

        def order_mode(value: Any, at: str) -> str | None:
            mode = self.enum(value, at, ORDER_MODES)
            if "requiredOrder" not in tools:
                self.add(at, "is allowed only together with requiredOrder")
            return mode

        # Keyword arguments are evaluated in the order written: the §2.1 table's order.
        return ToolsSpec(
            required=get("required", self.names) or (),
            forbidden=get("forbidden", self.names) or (),
            allowed=get("allowed", self.names),
            max_calls=get("maxCalls", self.count),
            max_calls_per_tool=get("maxCallsPerTool", self.per_tool) or (),
            required_order=get("requiredOrder", self.names) or (),
            order_mode=cast(OrderMode | None, get("orderMode", order_mode)),
            arguments=get("arguments", self.arguments) or (),
            requires=get("requires", self.requires) or (),
            enforced=bool(get("enforced", self.true)),
            durations=get("durations", self.duration_limits) or (),
        )

    def per_tool(self, value: Any, where: str) -> tuple[tuple[str, int], ...] | None:
        if not isinstance(value, Mapping):
            self.add(where, f"must be an object of tool name → integer ≥ 0, not {describe(value)}")
            return None
        caps: list[tuple[str, int]] = []
        for key, cap in value.items():
            if not isinstance(key, str) or not key:
                self.add(where, f"key {quote(key)} must be a non-empty tool name")
                continue
            parsed = self.count(cap, map_path(where, key))
            if parsed is not None:
                caps.append((key, parsed))
        return tuple(caps)

    def arguments(self, value: Any, where: str) -> tuple[ArgumentSpec, ...] | None:
        items = self.array(value, where, "argument checks")
        if items is None:
            return None
        parsed: list[ArgumentSpec] = []
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, ARGUMENT_KEYS, required=("tool", "pointer"))
            if entry is None:
                continue
            tool = self.name(entry["tool"], f"{at}.tool") if "tool" in entry else None
            pointer = (
                self.pointer(entry["pointer"], f"{at}.pointer") if "pointer" in entry else None
            )
            occurrence = "all"
            if "occurrence" in entry:
                occurrence = self.enum(entry["occurrence"], f"{at}.occurrence", OCCURRENCES) or ""
            check = self.entry_check(entry, at, pointer)
            if tool is not None and pointer is not None and occurrence and check is not None:
                parsed.append(ArgumentSpec(i, tool, pointer, check, cast(Occurrence, occurrence)))
        return tuple(parsed)

    # --- retries and llm ------------------------------------------------------------------

    def retries(self, value: Any, where: str, what: str) -> RetriesSpec | None:
        retries = self.obj(value, where, RETRIES_KEYS)
        if retries is None:
            return None
        if not any(key in retries for key in RETRIES_KEYS):
            self.add(where, f"{what} rule checks nothing: give reads or writes")
            return None
        reads = self.names(retries["reads"], f"{where}.reads") if "reads" in retries else ()
        writes = (
            self.writes(retries["writes"], f"{where}.writes", reads or ())
            if ("writes" in retries)
            else ()
        )
        if reads is None or writes is None:
            return None
        return RetriesSpec(reads, writes)

    def writes(
        self, value: Any, where: str, reads: tuple[str, ...]
    ) -> tuple[WriteTool, ...] | None:
        items = self.array(value, where, "write tools")
        if items is None:
            return None
        parsed: list[WriteTool] = []
        seen: dict[str, int] = {}
        ok = True
        for i, item in enumerate(items):
            at = f"{where}[{i}]"
            entry = self.obj(item, at, WRITE_KEYS, required=("tool",))
            if entry is None:
                ok = False
                continue
            tool = self.name(entry["tool"], f"{at}.tool") if "tool" in entry else None
            key: str | None = None
            if "idempotencyKey" in entry:
                key = self.pointer(entry["idempotencyKey"], f"{at}.idempotencyKey")
                if key == "":
                    self.add(
                        f"{at}.idempotencyKey",
                        'must point inside the arguments, not be "" (the whole value)',
                    )
                    key = None
                if key is None:
                    ok = False
            if tool is None:
                ok = False
                continue
            if tool in seen:
                self.add(
                    f"{at}.tool", f"duplicate {quote(tool)}, already at {where}[{seen[tool]}].tool"
                )
                ok = False
                continue
            if tool in reads:
                self.add(
                    f"{at}.tool",
                    f"{quote(tool)} is also in reads; a tool is either a read or a write",
                )
                ok = False
            seen[tool] = i
            parsed.append(WriteTool(tool, key))
        return tuple(parsed) if ok else None

    def llm(self, value: Any, where: str) -> LlmSpec | None:
        llm = self.obj(value, where, LLM_KEYS)
        if llm is None:
            return None
        return LlmSpec(
            self.count(llm["maxCalls"], f"{where}.maxCalls") if "maxCalls" in llm else None,
            self.count(llm["maxTotalTokens"], f"{where}.maxTotalTokens")
            if "maxTotalTokens" in llm
            else None,
            (self.names(llm["allowedModels"], f"{where}.allowedModels") or ())
            if "allowedModels" in llm
            else (),
            max_cost_usd=self.cost_limit(llm["maxCostUsd"], f"{where}.maxCostUsd")
            if "maxCostUsd" in llm
            else None,
        )

    def cost_limit(self, value: Any, where: str) -> Decimal | None:
        from tracecheck.contract.price_spec import usd_amount  # `decimal`: for a cost limit only

        return usd_amount(self, value, where)
