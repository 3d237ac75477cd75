"""Where the start-up of `tracecheck check` on a small file goes, next to `import orjson`.

    python bench/startup_breakdown.py [--runs 20]

`bench/cli_startup.py` says how far `check` is from the goal; this says what the rest is spent
on, in two ways:

1. Layers, each a fresh process, interleaved run by run (CPU time of the child, user + system,
   medians): `python -c pass`; `import orjson` (the yardstick); that plus every other module
   outside tracecheck that `check` loads (the standard library's `typing`, `argparse`,
   `pathlib`, `pickle`, ... and jsonpointer), found by running `check` once and listing
   `sys.modules`; that plus every tracecheck module `check` loads; and `check` itself.
2. Inside one `check` (in process, CPU time): how long creating dataclasses took (the
   `dataclasses` decorator generates and compiles each class's methods), how long compiling
   regular expressions took, how many tracecheck modules were imported, and how long the same
   command takes once everything is imported (a warm run: parsing the arguments, reading the
   11 spans, linting and compiling the contract, checking and printing the report).
3. An upper bound for cheaper value classes: `check` with the methods the `dataclasses`
   decorator generates served already compiled (from a cache the warm-up run fills), the
   last layer: what compiling them costs, which is most of what writing the classes by hand
   would save (the rest of creating a dataclass remains).

Bytecode is cached, as `bench/cli_startup.py` does it; one warm-up run of each layer first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = str(ROOT / "fixtures" / "otel-genai" / "clean.otlp.jsonl")
CONTRACT = str(ROOT / "contracts" / "refund-desk.json")
ARGV = ["check", TRACE, "--contract", CONTRACT]

# Run in one child: `check` with the dataclass decorator and the regex compiler timed.
_INSIDE = """
import contextlib, dataclasses, io, json, re, sys, time
import orjson  # the yardstick's own imports (and its regular expressions) are not counted
spent = {"dataclasses": 0.0, "classes": 0, "regex": 0.0, "patterns": 0}
process_class, compile_pattern = dataclasses._process_class, re._compile
def timed_class(cls, *args, **kwargs):
    started = time.process_time()
    try:
        return process_class(cls, *args, **kwargs)
    finally:
        spent["dataclasses"] += time.process_time() - started
        spent["classes"] += 1
def timed_pattern(pattern, flags):
    cached = (type(pattern), pattern, flags) in re._cache
    started = time.process_time()
    try:
        return compile_pattern(pattern, flags)
    finally:
        if not cached:
            spent["regex"] += time.process_time() - started
            spent["patterns"] += 1
dataclasses._process_class, re._compile = timed_class, timed_pattern
argv = json.loads(sys.argv[1])
started = time.process_time()
from tracecheck.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(argv) == 0
first = time.process_time() - started
dataclasses._process_class, re._compile = process_class, compile_pattern
started = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):
    for _ in range(10):
        main(argv)
spent["warm"] = (time.process_time() - started) / 10
spent["first"] = first
spent["modules"] = sorted(sys.modules)
print(json.dumps(spent))
"""


# `check` with the decorator's generated source compiled once, then loaded from `argv[1]`:
# `dataclasses` calls `exec(text, ...)`, looked up in its own globals first.
_PRECOMPILED = """
import builtins, contextlib, dataclasses, io, json, marshal, os, sys
path, argv = sys.argv[1], json.loads(sys.argv[2])
cache = {}
if os.path.exists(path):
    with open(path, "rb") as stored:
        cache = marshal.load(stored)
added = []
def cached_exec(text, globals=None, locals=None):
    code = cache.get(text)
    if code is None:
        code = cache[text] = compile(text, "<string>", "exec")
        added.append(text)
    builtins.exec(code, globals, locals)
dataclasses.exec = cached_exec
from tracecheck.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(argv) == 0
if added:
    with open(path, "wb") as stored:
        marshal.dump(cache, stored)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # Python's default: compiled modules are cached
    return env


def _cpu(command: list[str], cwd: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=_env(), cwd=cwd, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr.decode()}")
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def _inside(python: str, cwd: str) -> dict[str, object]:
    done = subprocess.run(
        [python, "-c", _INSIDE, json.dumps(ARGV)],
        env=_env(),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    value: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return value


def _loaded(python: str, code: str, cwd: str) -> set[str]:
    script = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [python, "-c", script], env=_env(), cwd=cwd, capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def layers(python: str, modules: list[str], cwd: str) -> dict[str, list[str]]:
    """Each layer's command: what each adds is the difference to the one before."""
    orjson_modules = _loaded(python, "import orjson", cwd)
    outside = sorted(
        name
        for name in modules
        if name not in orjson_modules
        and not name.startswith(("tracecheck", "redact", "_", "encodings."))
        and "." not in name
    )
    own = [name for name in modules if name.startswith("tracecheck")]
    script = str(Path(python).parent / "tracecheck")
    return {
        "python -c pass": [python, "-c", "pass"],
        "import orjson": [python, "-c", "import orjson"],
        "+ other modules check loads": [python, "-c", "import " + ",".join(["orjson", *outside])],
        "+ tracecheck's own modules": [
            python,
            "-c",
            "import " + ",".join(["orjson", *outside, *own]),
        ],
        "tracecheck check": [script, *ARGV],
        "check, dataclass code cached": [
            python,
            "-c",
            _PRECOMPILED,
            str(Path(cwd) / "dataclass-code.marshal"),
            json.dumps(ARGV),
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each layer (20)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:  # no source tree on the children's path
        inside = _inside(args.python, folder)
        modules = inside["modules"]
        assert isinstance(modules, list)
        commands = layers(args.python, modules, folder)
        for command in commands.values():  # warm-up: file caches, bytecode caches
            _cpu(command, folder)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(_cpu(command, folder))
    medians = {name: statistics.median(values) for name, values in times.items()}
    base = medians["import orjson"]
    print(
        f"start-up of check, {args.runs} interleaved runs, CPU ms (medians), load {os.getloadavg()[0]:.2f}:"
    )
    previous = 0.0
    for name, value in medians.items():
        if name == "check, dataclass code cached":  # beside check, not on top of it
            previous = medians["tracecheck check"]
        print(f"  {name:30} {value:7.1f}  ({value - previous:+6.1f})  {value / base:.2f}x orjson")
        previous = value
    own = [name for name in modules if str(name).startswith("tracecheck")]
    other = commands["+ other modules check loads"][-1].removeprefix("import orjson,")
    print(f"  (other modules: {other.replace(',', ', ')})")
    print("inside one check, CPU ms (after `import orjson`):")
    print(f"  {len(own)} tracecheck modules imported")
    print(f"  creating {inside['classes']} dataclasses: {float(inside['dataclasses']) * 1000:.1f}")
    print(
        f"  compiling {inside['patterns']} regular expressions: {float(inside['regex']) * 1000:.1f}"
    )
    print(
        f"  the whole first run in process (imports and work): {float(inside['first']) * 1000:.1f}"
    )
    print(f"  the same command again, all imported (the work): {float(inside['warm']) * 1000:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
