"""DSPy under OpenInference (scope `openinference.instrumentation.dspy`).

The instrumentation names a tool's span after the `dspy.Tool` it wraps, `<tool>.__call__` (or
`<tool>.acall`), and records the tool's name nowhere else: `input.value` holds only the call's
bound arguments, `{"kwargs": {...}}`. Every other span carries its OpenInference kind: modules
(`ReAct.forward`, `ChainOfThought.forward`, `Predict(<signature>).forward`) and adapters
(`ChatAdapter.__call__`) are chains, and `LM.__call__` is the one model call span.
"""

from __future__ import annotations

from tracecheck.conventions.model import Convention, ScopeMatch

__all__ = ["DSPY"]

DSPY = Convention(
    name="dspy",
    title="DSPy under OpenInference",
    versions="openinference-instrumentation-dspy 0.1.x (recorded: 0.1.48 on dspy 3.4.1)",
    scopes=(ScopeMatch("openinference.instrumentation.dspy"),),
    # `(instance.name or class name) + ".__call__" | ".acall"`: the callable's name.
    tool_from_name=r"(?s)(.+)\.(?:__call__|acall)",
    arguments_as_call=True,
    notes="A tool span is named `<tool>.__call__` (`<tool>.acall` when awaited) and no "
    "attribute names the tool: the tool is the part before the suffix. ReAct's own closing tool "
    'is `finish`. A tool\'s `input.value` is the call `{"kwargs": {…}}`. `LM.__call__` records '
    "the request model (`llm.model_name`, without LiteLLM's provider prefix) and no token "
    "counts; with OpenInference's LiteLLM instrumentation as well, each has a `completion` "
    "child that records the same call with its counts. Tools reach the model inside the "
    "prompt text, so no offered tools are recorded.",
)
