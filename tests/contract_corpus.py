"""Contracts for tests/test_schema_agrees.py: valid ones, subtly invalid ones, and the few the
compiler refuses for a rule JSON Schema cannot state.

A source is a document (written out as JSON for the compiler) or text: JSON text when it opens
with `{`, otherwise YAML, read as YAML 1.2.
"""

from __future__ import annotations

from typing import Any

P = {"tool": "A"}
TOOL = {"tools": {"required": ["Read"]}}


def c(**keys: Any) -> dict[str, Any]:
    return {"name": "c", **keys}


def never(label: str, p: Any = None) -> dict[str, Any]:
    return {"kind": "never", "label": label, "p": P if p is None else p}


def argument(check: Any, **keys: Any) -> dict[str, Any]:
    return {"kind": "argument", "label": "a", "p": P, "pointer": "/x", "check": check, **keys}


def matcher(value: Any) -> dict[str, Any]:
    return c(rules=[never("a", {"tool": value})])


# Both accept.
VALID: list[tuple[str, Any]] = [
    ("required", c(**TOOL)),
    ("run requireCompleted false", c(description="", run={"requireCompleted": False})),
    ("run statuses and duration", c(run={"allowedStatuses": ["running"], "maxDurationMs": 0.5})),
    (
        "every tools key",
        c(
            tools={
                "required": ["Read"],
                "forbidden": ["Bash"],
                "allowed": ["Read", "Grep"],
                "maxCalls": 0,
                "maxCallsPerTool": {"Read": 2, "a b": 0},
                "requiredOrder": ["Read", "Grep"],
                "orderMode": "all-occurrences",
                "arguments": [
                    {"tool": "Read", "pointer": "", "exists": True},
                    {"tool": "Read", "pointer": "/a/~0~1/0", "equals": None, "occurrence": "last"},
                    {"tool": "Read", "pointer": "/x", "oneOf": [1, "1", None, {"a": [1]}]},
                    {"tool": "Read", "pointer": "/x", "type": "null"},
                ],
                "enforced": True,
            }
        ),
    ),
    ("one name in requiredOrder", c(tools={"requiredOrder": ["a"]})),
    (
        "a pointer with a newline in a token",
        c(tools={"arguments": [{"tool": "a", "pointer": "/a\n", "exists": True}]}),
    ),
    ("reads", c(retries={"reads": ["a"]})),
    ("writes", c(retries={"writes": [{"tool": "w", "idempotencyKey": "/k"}, {"tool": "v"}]})),
    ("llm", c(llm={"maxCalls": 3, "maxTotalTokens": 0, "allowedModels": ["m"]})),
    ("an empty llm beside rules", c(llm={}, **TOOL)),
    ("empty caps beside rules", c(tools={"maxCallsPerTool": {}, "maxCalls": 1})),
    ("a count written 1.0", c(tools={"maxCalls": 1.0}, llm={"maxTotalTokens": 1e3})),
    ("a rule max written 2.0", c(rules=[{"kind": "atMost", "label": "a", "p": P, "max": 2.0}])),
    ("root kind in any ASCII case", c(scope={"root": {"kind": "aGeNt"}}, **TOOL)),
    (
        "root regex, flags and not",
        c(
            scope={"root": {"name": {"$regex": "^x", "flags": "ig"}, "not": {"kind": "TOOL"}}},
            **TOOL,
        ),
    ),
    ("every flag", matcher({"$regex": "a", "flags": "imsxugyd"})),
    ("a name that is a byte-order mark", {"name": "\ufeff", **TOOL}),
    (
        "only alternatives",
        c(alternatives={"anyOf": [{"id": "a", **TOOL}, {"id": "b", "llm": {"maxCalls": 1}}]}),
    ),
    (
        "same label in the base and an alternative",
        c(rules=[never("x")], alternatives={"anyOf": [{"id": "a", "rules": [never("x")]}]}),
    ),
    ("$schema: the schema beside it", {"$schema": "contract.schema.json", **c(**TOOL)}),
    ("$schema: a URL", {"$schema": "https://example.org/contract.schema.json", **c(**TOOL)}),
    ("$schema: any string", {"$schema": "", **c(**TOOL)}),
    (
        "an attr value shaped like a matcher is a value",
        c(rules=[never("a", {"attr": {"k": {"oneOf": [1]}}})]),
    ),
    (
        "every rule kind",
        c(
            rules=[
                {
                    "kind": "always",
                    "label": "a",
                    "p": {"attr": {"k": 1, "r": {"$regex": "x"}, "o": {"a": 1}}},
                },
                never("b", {"tool": {"oneOf": ["x", "x"]}, "model": "m"}),
                {"kind": "eventually", "label": "c", "p": {"kind": "UNKNOWN"}},
                {
                    "kind": "precedes",
                    "label": "d",
                    "a": P,
                    "b": {"tool": "B"},
                    "order": "start-order",
                },
                {"kind": "neverUnless", "label": "e", "p": P, "prior": {"tool": "B"}},
                {"kind": "atMost", "label": "f", "p": {"kind": "TOOL"}, "max": 0},
                {"kind": "tokensAtMost", "label": "g", "p": {"kind": "LLM"}, "max": 10},
                {"kind": "run", "label": "h", "maxDurationMs": 1},
                {**argument({"op": "exists"}), "label": "i"},
                {**argument({"op": "equals", "value": None}), "label": "j", "pointer": ""},
                {**argument({"op": "oneOf", "values": [1]}), "label": "k", "occurrence": "any"},
                {**argument({"op": "type", "type": "array"}), "label": "l"},
                {"kind": "toolsOffered", "label": "m"},
                {"kind": "toolsOffered", "label": "n", "declared": []},
                {"kind": "retrySafe", "label": "o", "reads": ["A"]},
            ]
        ),
    ),
    # YAML, read as YAML 1.2.
    ("yaml block style", "name: c\ntools:\n  required: [Read]\n  forbidden:\n    - Bash\n"),
    ("yaml: yes and on are strings", "name: yes\ntools: {required: [on, off, No]}\n"),
    ("yaml: 010 is ten", "name: c\ntools: {maxCalls: 010}\n"),
    ("yaml: 0o17 and 0x1F", "name: c\nllm: {maxCalls: 0o17, maxTotalTokens: 0x1F}\n"),
    ("yaml: 1e3 is a number", "name: c\nrun: {maxDurationMs: 1e3}\n"),
    ("yaml: a date is a string", "name: 2024-05-01\ntools: {required: [Read]}\n"),
    ("yaml: 1:20 is a string", "name: '1'\ntools: {required: [1:20]}\n"),
    (
        "yaml: merge key",
        "name: c\nllm: &l {maxCalls: 1}\nalternatives:\n  anyOf:\n    - id: a\n      llm:\n        <<: *l\n",
    ),
    ("yaml: $schema", "$schema: contract.schema.json\nname: c\ntools: {required: [Read]}\n"),
    ("json text", '{"name": "c", "tools": {"required": ["Read"]}}'),
]

# Both refuse.
INVALID: list[tuple[str, Any]] = [
    ("an array", []),
    ("a string", "just words"),
    ("no name", {"tools": {"required": ["Read"]}}),
    ("a blank name", c(name="  ", **TOOL)),
    ("a name of Python white space", c(name="\x1c\u3000\x85", **TOOL)),
    ("a name of no-break spaces", c(name="\u00a0\u2007", **TOOL)),
    ("an unknown top key", c(nmae="x", **TOOL)),
    ("$schema not a string", {"$schema": 3, **c(**TOOL)}),
    ("$schema alone", {"$schema": "contract.schema.json", "name": "c"}),
    ("an empty contract", c()),
    ("only a description", c(description="x")),
    ("empty tools", c(tools={})),
    ("empty llm", c(llm={})),
    ("empty caps", c(tools={"maxCallsPerTool": {}})),
    ("empty tools and llm", c(tools={"maxCallsPerTool": {}}, llm={})),
    ("an alternative without rules", c(alternatives={"anyOf": [{"id": "a"}]})),
    ("an alternative with empty tools", c(alternatives={"anyOf": [{"id": "a", "tools": {}}]})),
    ("an alternative with empty llm", c(alternatives={"anyOf": [{"id": "a", "llm": {}}]}, **TOOL)),
    ("no alternatives", c(alternatives={"anyOf": []})),
    ("an alternative without id", c(alternatives={"anyOf": [{"tools": {"required": ["a"]}}]})),
    ("a blank alternative id", c(alternatives={"anyOf": [{"id": " ", **TOOL}]})),
    ("tools typo", c(tools={"requird": ["Read"]})),
    ("empty names", c(tools={"required": []})),
    ("repeated names", c(tools={"required": ["a", "a"]})),
    ("an empty name", c(tools={"required": [""]})),
    ("a name not a string", c(tools={"forbidden": [1]})),
    ("a negative count", c(tools={"maxCalls": -1})),
    ("a negative count written -1.0", c(tools={"maxCalls": -1.0})),
    ("a fractional count", c(tools={"maxCalls": 1.5})),
    ("a boolean count", c(tools={"maxCalls": True})),
    ("a string count", c(tools={"maxCalls": "1"})),
    ("a negative cap", c(tools={"maxCallsPerTool": {"a": -1}})),
    ("a cap for an empty name", c(tools={"maxCallsPerTool": {"": 1}})),
    ("orderMode without requiredOrder", c(tools={"required": ["a"], "orderMode": "start-order"})),
    ("orderMode typo", c(tools={"requiredOrder": ["a", "b"], "orderMode": "start_order"})),
    ("enforced false", c(tools={"enforced": False})),
    ("no argument check", c(tools={"arguments": [{"tool": "a", "pointer": "/x"}]})),
    (
        "two argument checks",
        c(tools={"arguments": [{"tool": "a", "pointer": "/x", "exists": True, "type": "string"}]}),
    ),
    ("exists false", c(tools={"arguments": [{"tool": "a", "pointer": "/x", "exists": False}]})),
    (
        "a pointer without /",
        c(tools={"arguments": [{"tool": "a", "pointer": "x", "exists": True}]}),
    ),
    (
        "a pointer that is a newline",
        c(tools={"arguments": [{"tool": "a", "pointer": "\n", "exists": True}]}),
    ),
    (
        "a bad pointer escape",
        c(tools={"arguments": [{"tool": "a", "pointer": "/~2", "exists": True}]}),
    ),
    (
        "a pointer ending in ~",
        c(tools={"arguments": [{"tool": "a", "pointer": "/a~", "exists": True}]}),
    ),
    (
        "an unknown type",
        c(tools={"arguments": [{"tool": "a", "pointer": "/x", "type": "integer"}]}),
    ),
    ("no oneOf values", c(tools={"arguments": [{"tool": "a", "pointer": "/x", "oneOf": []}]})),
    (
        "an unknown occurrence",
        c(
            tools={
                "arguments": [{"tool": "a", "pointer": "/x", "exists": True, "occurrence": "every"}]
            }
        ),
    ),
    ("empty run", c(run={})),
    ("a zero duration", c(run={"maxDurationMs": 0})),
    ("a boolean duration", c(run={"maxDurationMs": True})),
    ("an unknown status", c(run={"allowedStatuses": ["done"]})),
    ("repeated statuses", c(run={"allowedStatuses": ["failed", "failed"]})),
    ("empty retries", c(retries={})),
    (
        "an idempotency key of the whole value",
        c(retries={"writes": [{"tool": "w", "idempotencyKey": ""}]}),
    ),
    ("no models", c(llm={"allowedModels": []})),
    ("an empty root", c(scope={"root": {}}, **TOOL)),
    ("a root kind typo", c(scope={"root": {"kind": "agnt"}}, **TOOL)),
    ("a root kind with a newline", c(scope={"root": {"kind": "agent\n"}}, **TOOL)),
    ("a root kind with a dotless i", c(scope={"root": {"kind": "chaın"}}, **TOOL)),
    (
        "a lower-case kind below the root",
        c(scope={"root": {"kind": "AGENT", "not": {"kind": "tool"}}}, **TOOL),
    ),
    ("empty rules", c(rules=[])),
    ("a rule without label", c(rules=[{"kind": "never", "p": P}])),
    ("a blank label", c(rules=[never(" ")])),
    ("a lower-case kind", c(rules=[never("a", {"kind": "tool"})])),
    ("a rule kind typo", c(rules=[{"kind": "nevr", "label": "a", "p": P}])),
    ("an empty predicate", c(rules=[never("a", {})])),
    ("an empty attr", c(rules=[never("a", {"attr": {}})])),
    ("an unknown flag", matcher({"$regex": "a", "flags": "q"})),
    ("flags with a newline", matcher({"$regex": "a", "flags": "i\n"})),
    ("flags beside oneOf", matcher({"oneOf": ["a"], "flags": "i"})),
    ("a regex not a string", c(rules=[never("a", {"attr": {"k": {"$regex": 1}}})])),
    ("a regex beside oneOf", matcher({"$regex": "a", "oneOf": ["a"]})),
    ("an empty matcher", matcher({})),
    ("an empty oneOf", matcher({"oneOf": []})),
    ("a oneOf of numbers", matcher({"oneOf": [1]})),
    ("a matcher not a string", matcher(3)),
    ("a run rule checking nothing", c(rules=[{"kind": "run", "label": "a"}])),
    ("a retrySafe rule checking nothing", c(rules=[{"kind": "retrySafe", "label": "a"}])),
    ("an equals check without value", c(rules=[argument({"op": "equals"})])),
    ("a value beside exists", c(rules=[argument({"op": "exists", "value": 1})])),
    ("a check op typo", c(rules=[argument({"op": "exist"})])),
    ("a key of another rule kind", c(rules=[{**never("a"), "max": 1}])),
    ("an empty declared name", c(rules=[{"kind": "toolsOffered", "label": "a", "declared": [""]}])),
    ("a fractional rule max", c(rules=[{"kind": "atMost", "label": "a", "p": P, "max": 0.5}])),
    # YAML, read as YAML 1.2: what YAML 1.1 read as booleans and numbers are strings.
    ("yaml: yes is not a boolean", "name: c\nrun: {requireCompleted: yes}\n"),
    ("yaml: on is not true", "name: c\ntools: {required: [a], enforced: on}\n"),
    ("yaml: 1:20 is not a count", "name: c\ntools: {maxCalls: 1:20}\n"),
    ("yaml: 1_000 is not a count", "name: c\ntools: {maxCalls: 1_000}\n"),
    ("yaml: a name alone", "name: yes\n"),
    ("yaml: a date is not a count", "name: c\nllm: {maxCalls: 2024-05-01}\n"),
    ("yaml: null name", "name:\ntools: {required: [a]}\n"),
    ("yaml: a tab-indented typo", "name: c\ntools: {requird: [a]}\n"),
]

# The compiler alone refuses these: each breaks one rule JSON Schema cannot state (the key
# names the rule in COMPILER_ONLY, tests/test_schema_agrees.py).
COMPILER_ONLY_CASES: list[tuple[str, str, Any]] = [
    ("unique-labels", "two rules with one label", c(rules=[never("x"), never("x")])),
    (
        "unique-labels",
        "a rule labelled like a key",
        c(tools={"allowed": ["a"]}, rules=[never("tools.allowed")]),
    ),
    (
        "unique-labels",
        "one label twice in an alternative",
        c(alternatives={"anyOf": [{"id": "a", "rules": [never("x"), never("x")]}]}),
    ),
    (
        "unique-alternative-ids",
        "two alternatives with one id",
        c(alternatives={"anyOf": [{"id": "a", **TOOL}, {"id": "a", **TOOL}]}),
    ),
    (
        "distinct-writes",
        "a write tool twice",
        c(retries={"writes": [{"tool": "w"}, {"tool": "w", "idempotencyKey": "/k"}]}),
    ),
    (
        "distinct-writes",
        "a write tool twice in a retrySafe rule",
        c(rules=[{"kind": "retrySafe", "label": "r", "writes": [{"tool": "w"}, {"tool": "w"}]}]),
    ),
    (
        "write-not-read",
        "a tool both read and write",
        c(retries={"reads": ["w"], "writes": [{"tool": "w"}]}),
    ),
    ("regex-syntax", "an unbalanced parenthesis", matcher({"$regex": "("})),
    (
        "regex-syntax",
        "a reversed range in an attr regex",
        c(rules=[never("a", {"attr": {"k": {"$regex": "[z-a]"}}})]),
    ),
    (
        "duplicate-keys",
        "json: a key twice",
        '{"name": "c", "tools": {"required": ["a"], "required": ["b"]}}',
    ),
    (
        "duplicate-keys",
        "yaml: a key twice",
        "name: c\ntools:\n  forbidden: [a]\n  forbidden: [b]\n",
    ),
    (
        "yaml-keys",
        "yaml: a tool name read as an integer",
        "name: c\ntools: {maxCallsPerTool: {1: 2}}\n",
    ),
    (
        "yaml-keys",
        "yaml: an attribute key read as a boolean",
        "name: c\nrules: [{kind: never, label: a, p: {attr: {true: 1}}}]\n",
    ),
    (
        "unpaired-surrogates",
        "json: an unpaired surrogate",
        '{"name": "\\ud800", "tools": {"required": ["a"]}}',
    ),
    ("non-finite", "json: 1e400", '{"name": "c", "run": {"maxDurationMs": 1e400}}'),
    ("non-finite", "yaml: an infinite duration", "name: c\nrun: {maxDurationMs: .inf}\n"),
    (
        "non-finite",
        "yaml: NaN as an expected value",
        "name: c\ntools: {arguments: [{tool: a, pointer: /x, equals: .nan}]}\n",
    ),
]


# --- argument matchers and tools.requires (issue 28) ----------------------------------------


def args(**check: Any) -> dict[str, Any]:
    return c(tools={"arguments": [{"tool": "a", "pointer": "/x", **check}]})


def whole(**check: Any) -> dict[str, Any]:
    return c(tools={"arguments": [{"tool": "a", "pointer": "", **check}]})


def requires(**entry: Any) -> dict[str, Any]:
    return c(tools={"requires": [{"tool": "b", "after": "a", **entry}]})


VALID += [
    ("regex", args(regex="^A-\\d+\\Z")),
    ("range: min only", args(range={"min": 0})),
    ("range: both, exclusive", args(range={"min": 0, "max": 1.5, "maxExclusive": True})),
    ("range: min above max (lint's, not the compiler's)", args(range={"min": 2, "max": 1})),
    ("contains a string", args(contains="refund")),
    ("contains an object", args(contains={"a": [1]})),
    ("partial with ignore", whole(partial={"a": {"b_id": 1}}, ignore=["*_id"])),
    ("partial of an array", args(partial=[1, {"a": None}])),
    ("schema: an object", whole(schema={"type": "object", "required": ["order_id"]})),
    ("schema: true", args(schema=True)),
    ("schema: another draft", args(schema={"$schema": "http://json-schema.org/draft-07/schema#"})),
    ("schema: offered", whole(schema="offered")),
    ("sameAs a pointer", args(sameAs={"tool": "b", "pointer": "/order_id"})),
    ("sameAs a result", args(sameAs={"tool": "b", "result": ""})),
    ("requires", requires()),
    ("requires with same", requires(same=["/order_id", ""])),
    (
        "requires alone in an alternative",
        c(
            alternatives={
                "anyOf": [{"id": "a", "tools": {"requires": [{"tool": "b", "after": "a"}]}}]
            }
        ),
    ),
    (
        "yaml: matchers",
        "name: c\ntools:\n  arguments:\n"
        "    - {tool: a, pointer: '', schema: offered}\n"
        "    - {tool: a, pointer: /n, range: {max: 5}}\n"
        "  requires: [{tool: a, after: b, same: [/id]}]\n",
    ),
]
INVALID += [
    ("regex: not a string", args(regex=1)),
    ("range: empty", args(range={})),
    ("range: min a string", args(range={"min": "1"})),
    ("range: min a boolean", args(range={"min": True})),
    ("range: maxExclusive without max", args(range={"min": 1, "maxExclusive": True})),
    ("range: exclusive not a boolean", args(range={"min": 1, "minExclusive": 1})),
    ("range: unknown key", args(range={"min": 1, "minimum": 2})),
    ("ignore without partial", args(equals=1, ignore=["*_id"])),
    ("ignore empty", whole(partial={}, ignore=[])),
    ("ignore twice the same", whole(partial={}, ignore=["a", "a"])),
    ("two checks: partial and contains", args(partial={}, contains=1)),
    ("schema: a string", args(schema="object")),
    ("schema: a number", args(schema=1)),
    ("schema: offered below the whole value", args(schema="offered")),
    ("sameAs: pointer and result", args(sameAs={"tool": "b", "pointer": "", "result": ""})),
    ("sameAs: neither", args(sameAs={"tool": "b"})),
    ("sameAs: no tool", args(sameAs={"pointer": "/x"})),
    ("sameAs: a bad pointer", args(sameAs={"tool": "b", "result": "x"})),
    ("sameAs: an unknown key", args(sameAs={"tool": "b", "pointer": "", "from": "b"})),
    ("requires: empty", c(tools={"requires": []})),
    ("requires: no after", c(tools={"requires": [{"tool": "b"}]})),
    ("requires: same empty", requires(same=[])),
    ("requires: same twice", requires(same=["/a", "/a"])),
    ("requires: same not a pointer", requires(same=["a"])),
    ("requires: unknown key", requires(before="a")),
]


# --- llm.maxCostUsd and prices (issue 28) ----------------------------------------------------


def priced(prices: Any, limit: Any = 0.5) -> dict[str, Any]:
    return c(llm={"maxCostUsd": limit}, prices=prices)


MINI = {"input": 0.4, "output": 1.6}
VALID += [
    ("cost without prices (lint's warning)", c(llm={"maxCostUsd": 1})),
    ("cost zero", priced({"m": MINI}, 0)),
    ("prices with every key", priced({"m": {**MINI, "cacheRead": 0.1, "cacheWrite": 0}})),
    ("a prefix price", priced({"gpt-4.1-mini*": MINI, "*": {"input": 9, "output": 9}})),
    ("integer prices", priced({"m": {"input": 3, "output": 15}})),
    ("prices nothing uses (lint's warning)", c(prices={"m": MINI}, **TOOL)),
    ("yaml: prices", "name: c\nllm: {maxCostUsd: 0.5}\nprices:\n  m*: {input: .40, output: 1}\n"),
]
INVALID += [
    ("cost negative", c(llm={"maxCostUsd": -0.5})),
    ("cost a string", c(llm={"maxCostUsd": "0.5"})),
    ("cost a boolean", c(llm={"maxCostUsd": True})),
    ("prices empty", priced({})),
    ("prices an array", priced([MINI])),
    ("prices: no output", priced({"m": {"input": 1}})),
    ("prices: negative", priced({"m": {**MINI, "cacheRead": -1}})),
    ("prices: a string", priced({"m": {**MINI, "output": "1.6"}})),
    ("prices: a boolean", priced({"m": {**MINI, "input": False}})),
    ("prices: unknown key", priced({"m": {**MINI, "cached": 0.1}})),
    ("prices: an empty model name", priced({"": MINI})),
    ("prices: * inside a name", priced({"gpt-*-mini": MINI})),
    ("prices: two *", priced({"gpt**": MINI})),
    ("prices in an alternative", c(alternatives={"anyOf": [{"id": "a", "prices": {}, **TOOL}]})),
]
COMPILER_ONLY_CASES += [
    (
        "non-finite",
        "yaml: an infinite price",
        "name: c\nllm: {maxCostUsd: 1}\nprices: {m: {input: .inf, output: 1}}\n",
    ),
]
COMPILER_ONLY_CASES += [
    ("regex-syntax", "an argument check's regex", args(regex="(")),
    ("argument-schema", "a schema with an unknown type", args(schema={"type": "strin"})),
    ("argument-schema", "a schema with a bad pattern", args(schema={"pattern": "("})),
]


# --- status, timing and loops (issue 28) -----------------------------------------------------


def timed(p: Any) -> dict[str, Any]:
    return c(rules=[never("a", p)])


VALID += [
    ("errors by count and percent", c(errors={"TOOL": {"max": 0}, "LLM": {"maxPercent": 12.5}})),
    ("errors: both limits", c(errors={"AGENT": {"max": 1.0, "maxPercent": 100}})),
    ("steps", c(steps={"TOOL": {"max": 12}, "LLM": {"min": 1, "max": 6}, "CHAIN": {"min": 0}})),
    ("steps: min equals max", c(steps={"LLM": {"min": 2, "max": 2}})),
    ("loops", c(loops={"maxRepeats": 1, "maxConsecutive": 3, "maxCycles": 2.0})),
    ("tools.durations", c(tools={"durations": {"a": {"p50": 1, "p95": 0.5, "p99": 9, "max": 10}}})),
    ("a predicate's status", timed({"kind": "TOOL", "status": "unset"})),
    ("a predicate's duration", timed({"durationMs": {"min": 0, "max": 0.25}})),
    ("a duration inside not", timed({"kind": "TOOL", "not": {"durationMs": {"max": 100}}})),
    ("a scope root's status", c(scope={"root": {"kind": "agent", "status": "ok"}}, **TOOL)),
    (
        "an alternative of limits",
        c(alternatives={"anyOf": [{"id": "a", "loops": {"maxCycles": 1}}]}),
    ),
    ("yaml: limits", "name: c\nerrors: {TOOL: {max: 0}}\nsteps:\n  LLM: {min: 1}\n"),
]
INVALID += [
    ("errors empty", c(errors={})),
    ("errors: a kind in lower case", c(errors={"tool": {"max": 0}})),
    ("errors: an empty limit", c(errors={"TOOL": {}})),
    ("errors: percent over 100", c(errors={"TOOL": {"maxPercent": 101}})),
    ("errors: percent negative", c(errors={"TOOL": {"maxPercent": -1}})),
    ("errors: a fractional count", c(errors={"TOOL": {"max": 0.5}})),
    ("errors: unknown key", c(errors={"TOOL": {"min": 1}})),
    ("errors an array", c(errors=[{"TOOL": {"max": 0}}])),
    ("steps empty", c(steps={})),
    ("steps: an unknown kind", c(steps={"STEP": {"max": 1}})),
    ("steps: a negative bound", c(steps={"LLM": {"min": -1}})),
    ("steps: a string bound", c(steps={"LLM": {"max": "3"}})),
    ("steps: an empty range", c(steps={"LLM": {}})),
    ("loops empty", c(loops={})),
    ("loops: zero", c(loops={"maxRepeats": 0})),
    ("loops: a boolean", c(loops={"maxCycles": True})),
    ("loops: a fraction", c(loops={"maxConsecutive": 1.5})),
    ("loops: unknown key", c(loops={"maxLoops": 2})),
    ("durations empty", c(tools={"durations": {}})),
    ("durations: an empty tool name", c(tools={"durations": {"": {"p95": 1}}})),
    ("durations: no statistic", c(tools={"durations": {"a": {}}})),
    ("durations: p90", c(tools={"durations": {"a": {"p90": 1}}})),
    ("durations: zero ms", c(tools={"durations": {"a": {"max": 0}}})),
    ("durations: a string", c(tools={"durations": {"a": {"p95": "1s"}}})),
    ("a status not known", timed({"status": "failed"})),
    ("a status in upper case", timed({"status": "ERROR"})),
    ("a duration range empty", timed({"durationMs": {}})),
    ("a duration below zero", timed({"durationMs": {"min": -1}})),
    ("a duration of a string", timed({"durationMs": {"max": "100"}})),
    ("a duration range unknown key", timed({"durationMs": {"max": 1, "unit": "s"}})),
]
COMPILER_ONLY_CASES += [
    ("min-not-above-max", "steps: min above max", c(steps={"LLM": {"min": 3, "max": 2}})),
    ("min-not-above-max", "durationMs: min above max", timed({"durationMs": {"min": 5, "max": 1}})),
    (
        "yaml-keys",
        "yaml: a duration's tool read as an integer",
        "name: c\ntools: {durations: {1: {max: 5}}}\n",
    ),
]
