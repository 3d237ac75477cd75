"""Scanners and the redaction floor (issue 16): `verify-safe` against secretlint, `redact` against
a parse–scan–write floor, on the 10k-span workload and on a dense copy of it.

    python bench/scanner_compare.py                     # 5 rounds, about 4.5 minutes
    python bench/scanner_compare.py --rounds 9
    python bench/scanner_compare.py --detect-secrets /path/to/detect-secrets   # adds 1 run of it

Every figure is a whole command in a fresh process, timed from spawn to exit (start-up included,
output to /dev/null); each round runs every case once, in a rotated order, and the table gives
the median over the rounds. MB/s is the input file's size over that time.

Inputs (all under the git-ignored `bench/.data/`):

- `normal`: `agent-10000s-1t-seed1-b512.otlp.jsonl` (made by `bench/workload.py` if missing);
- `dense`: the same file with 15% of all spans (a seeded choice among the spans with a
  `gen_ai.tool.call.result`) given an e-mail address, a phone number, a JWT and one API key
  (AWS, GitHub, Anthropic, Stripe or Slack shape, in turn) appended to that tool result. The fake
  values are assembled at run time from parts, so no scanner trips on this repository;
- `normal-strings`: every string of the normal file (keys and values, in document order), one a
  line, as plain text — the same text without the JSON around it.

Both scanners read exactly the same file for each input: secretlint 13 (the
`@secretlint/secretlint-rule-preset-recommend` preset, installed by npm into
`bench/.data/secretlint/` from `bench/secretlint/package.json` on first run; `--no-gitignore`,
since `bench/.data/` is git-ignored and secretlint 13 would otherwise skip the file silently)
and `tracecheck verify-safe` (profile `share`, the default).

The floor (`--floor`, run as its own process): read the file line by line, `orjson.loads` each
line, collect every string (keys and values), scan them once with RE2 joined by newlines (as
`bench/redact_bench.py`'s one-scan floor does) using one alternation of the credential detectors'
RE2 prefilters (`redact.detectors.CREDENTIAL_DETECTORS`), and write every line back with
`orjson.dumps`. A second floor adds the personal detectors (`share` redacts those too). The
pattern is built once by this script and handed over in a file, so the floor process imports
only orjson and re2.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource as rusage
import shutil
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / ".data"
SECRETLINT_SRC = HERE / "secretlint"
SECRETLINT_DIR = DATA / "secretlint"
NORMAL = DATA / "agent-10000s-1t-seed1-b512.otlp.jsonl"
DENSE = DATA / "scanner-dense-10000s-seed16.otlp.jsonl"
STRINGS = DATA / "scanner-normal-strings.txt"
TINY = DATA / "scanner-tiny.txt"
PLANT_SHARE = 0.15
PLANT_SEED = 16


# -- the floor ------------------------------------------------------------------------------


def _strings(value: object, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(key)
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)


def floor(source: Path, target: Path, pattern_file: Path) -> None:
    import orjson
    import re2

    options = re2.Options()
    options.max_mem = 64 << 20  # as redact.scan: the combined pattern's DFA needs it
    pattern = re2.compile(pattern_file.read_bytes(), options=options)
    matches = 0
    with source.open("rb") as reader, target.open("wb") as writer:
        for line in reader:
            document = orjson.loads(line)
            strings: list[str] = []
            _strings(document, strings)
            data = "\n".join(strings).encode("utf-8", "surrogatepass")
            for _ in pattern.finditer(data):
                matches += 1
            writer.write(orjson.dumps(document))
            writer.write(b"\n")
    print(matches)


def floor_pattern(personal: bool) -> bytes:
    from redact.detectors import CREDENTIAL_DETECTORS, PERSONAL_DETECTORS

    detectors = CREDENTIAL_DETECTORS + (PERSONAL_DETECTORS if personal else ())
    return "|".join(f"(?:{d.prefilter})" for d in detectors).encode()


# -- inputs -----------------------------------------------------------------------------------


def ensure_normal() -> None:
    if NORMAL.exists():
        return
    sys.path.insert(0, str(HERE))
    from workload import DEFAULT_DIR, Workload, ensure

    ensure(Workload(spans=10_000), DEFAULT_DIR)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def fake_values(rng: random.Random, index: int) -> str:
    """An e-mail, a phone number, a JWT and one key, as a tool might print them. Every
    token is assembled from parts here so that no scanner flags this source file."""
    alnum = string.ascii_letters + string.digits
    upper = string.ascii_uppercase + string.digits

    def pick(alphabet: str, count: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(count))

    first = rng.choice(["ana", "li", "maria", "omar", "kenji", "fatima", "john", "eva"])
    last = rng.choice(["silva", "chen", "garcia", "haddad", "tanaka", "okafor", "smith", "berg"])
    domain = rng.choice(["example-corp.com", "mail.acme.io", "contoso.org"])
    email = f"{first}.{last}{rng.randint(1, 99)}@{domain}"
    phone = f"+1 415-555-{rng.randint(0, 9999):04d}"
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(
        json.dumps({"sub": f"user-{rng.randint(1, 10**6)}", "iat": 1764000000 + index}).encode()
    )
    jwt = ".".join([header, payload, pick(alnum + "-_", 43)])
    kind = index % 5
    if kind == 0:
        key = "AWS_ACCESS_KEY_ID=" + "AK" + "IA" + pick(upper, 16)
    elif kind == 1:
        key = "token: " + "gh" + "p_" + pick(alnum, 36)
    elif kind == 2:
        key = '{"api_key": "' + "sk-" + "ant-" + "api03-" + pick(alnum + "-_", 93) + "AA" + '"}'
    elif kind == 3:
        key = "stripe " + "sk_" + "live_" + pick(alnum, 24)
    else:
        key = (
            "SLACK="
            + "xo"
            + "xb-"
            + f"{pick(string.digits, 12)}-{pick(string.digits, 13)}-"
            + pick(alnum, 24)
        )
    return (
        f"\n\nContact: {first.title()} {last.title()} <{email}>, tel. {phone}\n"
        f"Authorization: Bearer {jwt}\n{key}\n"
    )


def make_dense() -> None:
    import orjson

    if DENSE.exists():
        return
    lines = NORMAL.read_bytes().splitlines()
    documents = [orjson.loads(line) for line in lines]
    tool_spans = []
    total = 0
    for document in documents:
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    total += 1
                    for attribute in span.get("attributes", []):
                        if attribute["key"] == "gen_ai.tool.call.result":
                            tool_spans.append(attribute["value"])
    rng = random.Random(PLANT_SEED)
    chosen = rng.sample(range(len(tool_spans)), round(total * PLANT_SHARE))
    for index, which in enumerate(sorted(chosen)):
        value = tool_spans[which]
        value["stringValue"] = value.get("stringValue", "") + fake_values(rng, index)
    with DENSE.open("wb") as out:
        for document in documents:
            out.write(orjson.dumps(document) + b"\n")


def make_strings() -> None:
    import orjson

    if STRINGS.exists():
        return
    with (
        NORMAL.open("rb") as reader,
        STRINGS.open("w", encoding="utf-8", errors="surrogatepass") as out,
    ):
        for line in reader:
            strings: list[str] = []
            _strings(orjson.loads(line), strings)
            out.write("\n".join(strings))
            out.write("\n")


def ensure_secretlint() -> Path:
    SECRETLINT_DIR.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", ".secretlintrc.json"):
        shutil.copyfile(SECRETLINT_SRC / name, SECRETLINT_DIR / name)
    binary = SECRETLINT_DIR / "node_modules" / ".bin" / "secretlint"
    if not binary.exists():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=SECRETLINT_DIR,
            check=True,
        )
    return binary


# -- timing -----------------------------------------------------------------------------------


CPU: dict[tuple[str, str], list[float]] = {}  # CPU seconds (user + system) of each timed run


def _children_cpu() -> float:
    usage = rusage.getrusage(rusage.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], case: tuple[str, str] | None = None) -> float:
    """Wall seconds of the command; its CPU seconds (children included) go to `CPU[case]`."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    if case is not None:
        CPU.setdefault(case, []).append(_children_cpu() - cpu)
    # verify-safe exits 1 and secretlint 1 when they find something; anything else is a failure.
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return seconds


def version(command: list[str]) -> str:
    return subprocess.run(command, capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--detect-secrets",
        help="a detect-secrets executable: 1 run of it, secretlint and verify-safe on the first "
        "2 lines (about 3 MB) of the normal and dense inputs",
    )
    parser.add_argument(
        "--inputs",
        default="normal,dense,normal-strings,tiny",
        help="the inputs to time, of normal, dense, normal-strings and tiny (all four)",
    )
    parser.add_argument(
        "--against",
        metavar="DIR",
        help="also time verify-safe and redact with the packages of DIR (a `git archive` or "
        "worktree of another revision) in the same rounds, as `… (DIR)`",
    )
    parser.add_argument(
        "--floor", nargs=3, metavar=("IN", "OUT", "PATTERN"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.floor:
        floor(*map(Path, args.floor))
        return

    ensure_normal()
    make_dense()
    make_strings()
    TINY.write_text("hello\n")
    secretlint = ensure_secretlint()
    tracecheck = str(Path(sys.executable).with_name("tracecheck"))
    patterns = {}
    for label, personal in (("credential", False), ("credential+personal", True)):
        patterns[label] = DATA / f"scanner-floor-{label.replace('+', '-')}.re2"
        patterns[label].write_bytes(floor_pattern(personal))
    out = DATA / "scanner-out.jsonl"
    inputs = {"normal": NORMAL, "dense": DENSE, "normal-strings": STRINGS, "tiny": TINY}

    def secretlint_cmd(path: Path) -> list[str]:
        rc = str(SECRETLINT_DIR / ".secretlintrc.json")
        return [
            str(secretlint),
            "--no-gitignore",
            "--no-glob",
            "--no-color",
            "--secretlintrc",
            rc,
            str(path),
        ]

    chosen = args.inputs.split(",")
    unknown = set(chosen) - set(inputs)
    if unknown:
        parser.error(f"--inputs: unknown {', '.join(sorted(unknown))}")
    cases: list[tuple[str, str, list[str]]] = []
    for name in [name for name in ("normal", "dense", "normal-strings", "tiny") if name in chosen]:
        path = inputs[name]
        cases.append((name, "verify-safe", [tracecheck, "verify-safe", str(path)]))
        if args.against:
            against = ["env", f"PYTHONPATH={args.against}", tracecheck]
            cases.append(
                (name, f"verify-safe ({args.against})", [*against, "verify-safe", str(path)])
            )
        cases.append((name, "secretlint", secretlint_cmd(path)))
    for name in [name for name in ("normal", "dense") if name in chosen]:
        path = inputs[name]
        redact_cmd = [tracecheck, "redact", "--profile", "share", "-o", str(out), str(path)]
        cases.append((name, "redact --profile share", redact_cmd))
        if args.against:
            against = ["env", f"PYTHONPATH={args.against}", tracecheck]
            cases.append(
                (name, f"redact --profile share ({args.against})", [*against, *redact_cmd[1:]])
            )
        for label, pattern in patterns.items():
            floor_cmd = [sys.executable, __file__, "--floor", str(path), str(out), str(pattern)]
            cases.append((name, f"floor ({label})", floor_cmd))
    if "tiny" in chosen:
        cases.append(("tiny", "python -c pass", [sys.executable, "-c", "pass"]))

    times: dict[tuple[str, str], list[float]] = {(i, t): [] for i, t, _ in cases}
    print(f"{len(cases)} cases × {args.rounds} rounds; load average {os.getloadavg()}", flush=True)
    for round_ in range(args.rounds):
        shift = round_ * 3 % len(cases)
        for name, tool, command in cases[shift:] + cases[:shift]:
            times[(name, tool)].append(timed(command, (name, tool)))
        print(f"round {round_ + 1} done", flush=True)
    extra: dict[tuple[str, str], float] = {}
    if args.detect_secrets:
        # About 0.1 MB/s: the whole 30 MB would take minutes per input, so a head of whole lines.
        for name in ("normal", "dense"):
            head = DATA / f"scanner-{name}-head.jsonl"
            with inputs[name].open("rb") as reader:
                head.write_bytes(reader.readline() + reader.readline())
            inputs[f"{name}-head"] = head
            command = [args.detect_secrets, "scan", "--all-files", str(head)]
            extra[(f"{name}-head", "detect-secrets (1 run)")] = timed(command)
            extra[(f"{name}-head", "secretlint (1 run)")] = timed(secretlint_cmd(head))
            extra[(f"{name}-head", "verify-safe (1 run)")] = timed(
                [tracecheck, "verify-safe", str(head)]
            )

    sizes = {name: path.stat().st_size / 1e6 for name, path in inputs.items()}
    medians = {key: statistics.median(values) for key, values in times.items()}
    medians.update(extra)
    print()
    print(
        f"date {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()}"
    )
    print(
        f"tracecheck {version([tracecheck, '--version'])}, secretlint {version([str(secretlint), '--version'])}"
    )
    cpu = {key: statistics.median(values) for key, values in CPU.items()}
    print("| input | MB | command | median s | min–max s | MB/s | median CPU s |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for (name, tool), seconds in medians.items():
        spread = times.get((name, tool))
        span = f"{min(spread):.2f}–{max(spread):.2f}" if spread else "1 run"
        rate = f"{sizes[name] / seconds:.1f}" if name != "tiny" else "(start-up)"
        used = f"{cpu[(name, tool)]:.2f}" if (name, tool) in cpu else ""
        print(f"| {name} | {sizes[name]:.1f} | {tool} | {seconds:.2f} | {span} | {rate} | {used} |")
    print()
    print("| input | verify-safe / secretlint time | the same in CPU time | goal ≤ 1.0 (time) |")
    print("|---|---:|---:|---|")
    for name in [name for name in ("normal", "dense", "normal-strings") if name in chosen]:
        ratio = medians[(name, "verify-safe")] / medians[(name, "secretlint")]
        by_cpu = cpu[(name, "verify-safe")] / cpu[(name, "secretlint")]
        met = "met" if ratio <= 1.0 else "not met"
        print(f"| {name} | {ratio:.2f} | {by_cpu:.2f} | {met} |")
    print()
    print(
        "| input | redact / floor (credential) | redact / floor (credential+personal) "
        "| issue 16: ≤ 1.5 | issue 32: ≤ 2 (credential+personal) | the same in CPU time |"
    )
    print("|---|---:|---:|---|---|---:|")
    for name in [name for name in ("normal", "dense") if name in chosen]:
        redact_s = medians[(name, "redact --profile share")]
        a = redact_s / medians[(name, "floor (credential)")]
        b = redact_s / medians[(name, "floor (credential+personal)")]
        met16 = "met" if a <= 1.5 else "not met"
        met32 = "met" if b <= 2 else "not met"
        by_cpu = cpu[(name, "redact --profile share")] / cpu[(name, "floor (credential+personal)")]
        print(f"| {name} | {a:.2f} | {b:.2f} | {met16} | {met32} | {by_cpu:.2f} |")
    record = {
        "medians": {f"{n} | {t}": s for (n, t), s in medians.items()},
        "runs": {f"{n} | {t}": v for (n, t), v in times.items()},
        "cpu": {f"{n} | {t}": v for (n, t), v in CPU.items()},
        "mb": sizes,
    }
    (DATA / "scanner_compare.json").write_text(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
