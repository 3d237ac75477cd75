"""Lint of the limits on status, timing and loops: step counts no run can meet beside the tool
and model keys, and limits that check nothing (contract/lint.py reports them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Literal

from tracecheck.contract.spec import PathSpec

__all__ = ["LIMIT_CODES", "limit_findings"]

# Each code with its level (contract/lint.py adds them to its stable list).
LIMIT_CODES: dict[str, Literal["error", "warning"]] = {
    "steps.required-exceeds-max": "error",
    "steps.min-exceeds-max-calls": "error",
    "tools.duration-on-forbidden": "warning",
    "errors.percent-allows-all": "warning",
}


def limit_findings(path: PathSpec) -> Iterator[tuple[str, str, str]]:
    """(code, path, message) of each finding in one path, errors first."""
    at = path.at
    tools = path.tools
    required = set(tools.required) | set(tools.required_order) if tools is not None else set()
    ceilings = {
        "TOOL": ("tools.maxCalls", tools.max_calls if tools is not None else None),
        "LLM": ("llm.maxCalls", path.llm.max_calls if path.llm is not None else None),
    }
    for step in path.steps:
        where = f"steps{_key(step.kind)}"
        if step.kind == "TOOL" and step.max is not None and len(required) > step.max:
            yield (
                "steps.required-exceeds-max",
                at(f"{where}.max"),
                f"steps[TOOL].max is {step.max} but {len(required)} distinct tool(s) are required",
            )
        key, ceiling = ceilings.get(step.kind, ("", None))
        if step.min is not None and ceiling is not None and step.min > ceiling:
            yield (
                "steps.min-exceeds-max-calls",
                at(f"{where}.min"),
                f"steps[{step.kind}].min is {step.min} but {key} is {ceiling}",
            )
    forbidden = set(tools.forbidden) if tools is not None else set()
    for limit in tools.durations if tools is not None else ():
        if limit.tool in forbidden:
            yield (
                "tools.duration-on-forbidden",
                at(f"tools.durations{_key(limit.tool)}.{limit.stat}"),
                f"times the calls of {json.dumps(limit.tool, ensure_ascii=False)}, which is "
                "forbidden",
            )
    for error in path.errors:
        if error.max is None and error.max_percent == 100:
            yield (
                "errors.percent-allows-all",
                at(f"errors{_key(error.kind)}.maxPercent"),
                f"maxPercent 100 lets every {error.kind} span fail, so it checks nothing",
            )


def _key(name: str) -> str:
    return f"[{json.dumps(name, ensure_ascii=False)}]"
