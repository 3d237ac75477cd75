"""Load test of `tracecheck proxy` on loopback: throughput and added latency, against a null upstream.

    python bench/proxy_load.py                       # 100- and 512-span requests, 1 and 16 clients
    python bench/proxy_load.py --batch-sizes 512 --clients 4 --rounds 2 --gzip
    python bench/proxy_load.py --proxy-args='--queue-size 32' --json /tmp/proxy-load.json
    python bench/proxy_load.py --tracecheck-path /tmp/rev   # the proxy of another revision
    python bench/proxy_load.py --compare-args='--scrub-processes 2'   # two settings, one run

Three processes on 127.0.0.1: a null OTLP/HTTP upstream (this file with `--null-upstream`:
uvicorn with h11; it drains the body and answers 200 with an empty `ExportTraceServiceResponse`
and `content-length: 0`, one write per response), the proxy (`python -m tracecheck proxy
--queue-size Q --upstream-timeout 30`, then whatever `--proxy-args` holds, forwarding to the
null upstream; from the packages in `--tracecheck-path DIR` when given), and this script,
the clients.

The baseline ("direct") posts the same requests straight to the null upstream. Its listening
socket is made as an IPPROTO_TCP socket with TCP_NODELAY: asyncio turns Nagle's algorithm off
only on accepted sockets whose `proto` is IPPROTO_TCP, and a plain `socket.socket()` has proto 0.
Without that, a response written in two pieces (headers, then the end of a chunked body) waited
for the client's delayed ACK: about 44 ms on every reused keep-alive connection, whatever the
body size, which slowed the baseline (and the proxy's own requests to the upstream alike) and
flattered the proxy's ratios. The clients are httpx's sync
clients, which set TCP_NODELAY themselves (the script asks for it too). Before measuring, the
script posts empty requests on one keep-alive connection to each server and prints the median
latency (about 1 ms on loopback; it warns above 10 ms, the sign of a Nagle stall).

The requests are the spans of the workload (bench/workload.py, `--spans` spans in one trace)
cut into protobuf `ExportTraceServiceRequest`s of B spans for each `--batch-sizes` B (the
requests a `BatchSpanProcessor` with `max_export_batch_size` B sends; spans beyond the last
whole request are left out). A cell is one batch size and one `--clients` count C: C threads,
each with its own keep-alive `httpx.Client` per server (kept for the whole run), take requests
from one shared list until it is empty; that is one phase. Each round runs every cell once
against both servers, back to back, the direct phase first in odd rounds and the proxy phase
first in even ones, so that both see the same machine state and drift hits both alike. Before
a phase is timed every client GETs `/healthz` (which re-opens a connection the server closed
while it sat idle), so no timed request pays for connecting. Latency is per request, from
sending the first byte to reading the last; throughput is spans delivered (answered 200) over
the phase's wall time. Across rounds a cell's phases are merged: spans over the summed wall
time, percentiles (nearest rank) over every request. The proxy's *added* latency is its
percentile minus the direct one; ratios are proxy over direct, from the same run.

CPU time (user + system, from `/proc`) of each server's process tree is read around every
phase: the proxy's spans per CPU-second are what a replica on one core could scrub. The
proxy's memory is read from `/proc/<pid>/status` (VmRSS after warm-up, VmHWM at the end). A
round is not started when, at the previous round's pace, it would end after `--time-limit`
seconds, so the run stays bounded (90 s by default on two cores with the proxy of 2026-12-03;
the output says how many rounds ran).
`--json PATH` writes every figure as JSON as well.

`--overload SECONDS` measures something else: every client of the largest `--clients` count
sends requests of the first `--batch-sizes` back to back for SECONDS, waiting what a 503's or
429's `Retry-After` asks as OTLP exporters do (`--no-retry-after`: at once), and the report is
every answer's status and latency against the proxy's `--upstream-timeout`, the goodput, and the
200s per second of the run (issue 33's overload: `--batch-sizes 4000 --clients 32
--proxy-args='--upstream-timeout 3 --queue-size 32 --max-body-bytes 12000000' --overload 20`).

`--compare-args ARGS` starts a second proxy ("compare": the same command with ARGS after
`--proxy-args`) and measures it in the same rounds, so that two settings see the same machine
state: each round runs every cell against the three servers in turn, the first server of a round
rotating. The report adds the second proxy's table and, per cell, its spans/s over the first's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import shlex
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

_PREFIX = struct.Struct(">I")
_EMPTY_RESPONSE = b""  # an empty ExportTraceServiceResponse encodes to no bytes
_NODELAY = (socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_STALL = 0.010  # a reused-connection round trip slower than this is a Nagle stall, not loopback


# ---------------------------------------------------------------------------------------------
# The null upstream (run in its own process: `proxy_load.py --null-upstream`)


async def _null_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [
        (b"content-type", b"application/x-protobuf"),
        (b"content-length", str(len(_EMPTY_RESPONSE)).encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": _EMPTY_RESPONSE})


def _serve_null() -> int:
    return _serve(_null_app)


def _serve(app: Any) -> int:
    """`app` on uvicorn with h11, on a loopback port it prints first."""
    import uvicorn

    # proto IPPROTO_TCP, so that asyncio sets TCP_NODELAY on every accepted connection (and
    # the listening socket has it too, which Linux copies to accepted sockets).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(*_NODELAY)
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, http="h11", log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


# ---------------------------------------------------------------------------------------------
# The pass-through forwarder (`proxy_load.py --pass-through UPSTREAM`, with `--forwarder`)


def _forwarder_app(upstream: str) -> Any:
    """What the proxy does but scrub: read the whole body, POST it to the same path of the
    upstream with its content type and coding (httpx's async client, with the proxy's
    connection limits), and answer with the upstream's status and body. `/healthz` is answered
    here. The same server stack as the proxy's (uvicorn, h11, asyncio)."""
    state: dict[str, httpx.AsyncClient] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                limits = httpx.Limits(
                    max_connections=16, max_keepalive_connections=16, keepalive_expiry=2.0
                )
                state["client"] = httpx.AsyncClient(limits=limits, timeout=30)
                await send({"type": "lifespan.startup.complete"})
            await state["client"].aclose()
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        status, answer, media = 200, b"", b"text/plain"
        if scope["method"] == "POST":
            names = (b"content-type", b"content-encoding")
            forwarded = {k.decode(): v.decode() for k, v in scope["headers"] if k in names}
            response = await state["client"].post(
                upstream + scope["path"], content=bytes(body), headers=forwarded
            )
            status, answer = response.status_code, response.content
            media = response.headers.get("content-type", "application/x-protobuf").encode()
        headers = [(b"content-type", media), (b"content-length", str(len(answer)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    return app


def _serve_forwarder(upstream: str) -> int:
    return _serve(_forwarder_app(upstream))


# ---------------------------------------------------------------------------------------------
# Requests


def _spans(workload: Workload, root: Path) -> list[tuple[bytes, bytes, Any]]:
    """(resource, scope, span) for every span of the workload's stream, in order; resource and
    scope as the serialized `ResourceSpans` and `ScopeSpans` without their spans."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    data = workload.path(root, "otlp-pbstream").read_bytes()
    out: list[tuple[bytes, bytes, Any]] = []
    offset = 0
    while offset < len(data):
        (size,) = _PREFIX.unpack_from(data, offset)
        request = ExportTraceServiceRequest.FromString(data[offset + 4 : offset + 4 + size])
        offset += 4 + size
        for resource_spans in request.resource_spans:
            resource = _without(resource_spans, "scope_spans")
            for scope_spans in resource_spans.scope_spans:
                scope = _without(scope_spans, "spans")
                out.extend((resource, scope, span) for span in scope_spans.spans)
    return out


def _without(message: Any, field: str) -> bytes:
    """A protobuf message serialized without one of its fields."""
    copy = type(message)()
    copy.CopyFrom(message)
    copy.ClearField(field)
    return bytes(copy.SerializeToString())


def _requests(spans: Sequence[tuple[bytes, bytes, Any]], size: int) -> list[bytes]:
    """Protobuf requests of `size` spans each, consecutive spans of one resource and scope
    grouped as an exporter groups them."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans

    out = []
    for start in range(0, len(spans) - size + 1, size):
        request = ExportTraceServiceRequest()
        last: tuple[bytes, bytes] | None = None
        group: Any = None
        for resource, scope, span in spans[start : start + size]:
            if (resource, scope) != last:
                entry = request.resource_spans.add()
                entry.CopyFrom(ResourceSpans.FromString(resource))
                group = entry.scope_spans.add()
                group.CopyFrom(ScopeSpans.FromString(scope))
                last = (resource, scope)
            group.spans.append(span)
        out.append(request.SerializeToString())
    return out


# ---------------------------------------------------------------------------------------------
# Servers


@dataclass(frozen=True)
class Server:
    name: str  # "direct" (the null upstream) or "proxy"
    url: str
    pid: int


def _tree(pid: int) -> list[int]:
    """`pid` and every process descended from it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    out = [pid]
    for parent in out:
        out.extend(children.get(parent, []))
    return out


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process tree, children it has reaped included."""
    ticks = 0
    for member in _tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])
    return ticks / _CLOCK_TICKS


def _memory(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM in bytes, each summed over the process tree."""
    out = {"VmRSS": 0, "VmHWM": 0}
    for member in _tree(pid):
        try:
            lines = Path(f"/proc/{member}/status").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            name, _, value = line.partition(":")
            if name in out:
                out[name] += int(value.split()[0]) * 1024
    return out


@contextmanager
def _process(
    argv: list[str], port_from: str, source: Path | None = None
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start a server process; yield it and its URL (the port read from stdout or stderr).
    With `source`, the process runs in that directory with it first on PYTHONPATH, so that
    `-m tracecheck` imports the packages found there."""
    env = os.environ.copy()
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=source
    )
    try:
        stream = process.stdout if port_from == "stdout" else process.stderr
        assert stream is not None
        line = stream.readline()
        pattern = r"^(\d+)$" if port_from == "stdout" else r"listening on http://127\.0\.0\.1:(\d+)"
        match = re.search(pattern, line.strip())
        if match is None:
            rest = "" if process.poll() is None else (process.stderr or stream).read()
            raise RuntimeError(f"{argv[1:4]}: did not start: {line!r} {rest}")
        url = f"http://127.0.0.1:{match.group(1)}"
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield process, url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _client() -> httpx.Client:
    return httpx.Client(timeout=60, transport=httpx.HTTPTransport(socket_options=[_NODELAY]))


def _round_trips(url: str, headers: dict[str, str], count: int = 20) -> dict[str, float]:
    """Median seconds of an empty request on a fresh connection and on a reused one."""
    fresh, reused = [], []
    for _ in range(5):
        with _client() as client:
            started = time.perf_counter()
            client.post(f"{url}/v1/traces", content=b"", headers=headers)
            fresh.append(time.perf_counter() - started)
    with _client() as client:
        client.post(f"{url}/v1/traces", content=b"", headers=headers)
        for _ in range(count):
            started = time.perf_counter()
            client.post(f"{url}/v1/traces", content=b"", headers=headers)
            reused.append(time.perf_counter() - started)
    return {"fresh": statistics.median(fresh), "reused": statistics.median(reused)}


# ---------------------------------------------------------------------------------------------
# Load


@dataclass(frozen=True)
class Phase:
    server: str
    batch: int
    clients: int
    requests: int
    spans: int
    wall: float
    latencies: tuple[float, ...]
    failures: int
    cpu: float  # CPU seconds of the server's process tree during the phase

    @property
    def spans_per_s(self) -> float:
        return self.spans / self.wall if self.wall else float("nan")

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _load(
    server: Server,
    pool: Sequence[httpx.Client],
    bodies: Sequence[bytes],
    batch: int,
    headers: dict[str, str],
) -> Phase:
    pending = list(reversed(bodies))
    lock = threading.Lock()
    warmed = threading.Barrier(len(pool) + 1)
    go = threading.Event()  # set once the clock runs
    latencies: list[float] = []
    failures = [0]
    spans = [0]

    def worker(client: httpx.Client) -> None:
        try:
            client.get(f"{server.url}/healthz")
        finally:
            warmed.wait()
            go.wait()
        while True:
            with lock:
                if not pending:
                    return
                body = pending.pop()
            started = time.perf_counter()
            try:
                response = client.post(f"{server.url}/v1/traces", content=body, headers=headers)
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            took = time.perf_counter() - started
            with lock:
                if ok:
                    latencies.append(took)
                    spans[0] += batch
                else:
                    failures[0] += 1

    threads = [threading.Thread(target=worker, args=(client,)) for client in pool]
    for thread in threads:
        thread.start()
    warmed.wait()
    cpu = _cpu(server.pid)
    started = time.perf_counter()
    go.set()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    cpu = _cpu(server.pid) - cpu
    return Phase(
        server.name,
        batch,
        len(pool),
        len(latencies),
        spans[0],
        wall,
        tuple(latencies),
        failures[0],
        cpu,
    )


def _merge(phases: Sequence[Phase]) -> Phase:
    return Phase(
        phases[0].server,
        phases[0].batch,
        phases[0].clients,
        sum(p.requests for p in phases),
        sum(p.spans for p in phases),
        sum(p.wall for p in phases),
        tuple(x for p in phases for x in p.latencies),
        sum(p.failures for p in phases),
        sum(p.cpu for p in phases),
    )


def _int_list(text: str) -> list[int]:
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: not a comma-separated list of integers"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give positive integers, e.g. 100,512")
    return values


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=20_480, help="spans per phase (20480)")
    parser.add_argument(
        "--batch-sizes", type=_int_list, default=[100, 512], help="spans per request (100,512)"
    )
    parser.add_argument(
        "--clients", type=_int_list, default=[1, 16], help="concurrent exporters (1,16)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every cell (5)")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=300,
        help="start no round that would end later than this (300 s)",
    )
    parser.add_argument("--queue-size", type=int, default=16, help="the proxy's --queue-size (16)")
    parser.add_argument(
        "--proxy-args",
        default="",
        metavar="ARGS",
        help="more options for `python -m tracecheck proxy`, one shell-quoted string "
        "(write --proxy-args='--opt value')",
    )
    parser.add_argument(
        "--compare-args",
        metavar="ARGS",
        help="also measure a second proxy, run with these options after --proxy-args, in the "
        "same rounds (write --compare-args='--opt value')",
    )
    parser.add_argument(
        "--tracecheck-path",
        type=Path,
        metavar="DIR",
        help="run the proxy from the tracecheck and redact packages in DIR (e.g. another "
        "revision: git archive REV tracecheck redact | tar -x -C DIR)",
    )
    parser.add_argument("--gzip", action="store_true", help="send gzip bodies, as exporters may")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, help="workload directory")
    parser.add_argument(
        "--forwarder",
        action="store_true",
        help="also measure a pass-through forwarder (the proxy's hops without scrubbing) in the "
        "same rounds, and each proxy's spans/s and p99 against it",
    )
    parser.add_argument(
        "--overload",
        type=float,
        metavar="SECONDS",
        help="instead of the rounds: every client of the largest --clients count sends requests "
        "of the first --batch-sizes back to back for SECONDS (an overload); report every "
        "answer's status and latency against the proxy's --upstream-timeout, and the goodput",
    )
    parser.add_argument(
        "--no-retry-after",
        dest="retry_after",
        action="store_false",
        help="with --overload: send again at once after a 503 or 429, not after its "
        "Retry-After as OTLP exporters do",
    )
    parser.add_argument("--null-upstream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pass-through", metavar="UPSTREAM", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.null_upstream:
        return _serve_null()
    if args.pass_through:
        return _serve_forwarder(args.pass_through)

    workload = Workload(args.spans, 1, 1, 512)
    ensure(workload, args.out)
    spans = _spans(workload, args.out)
    bodies: dict[int, list[bytes]] = {}
    for size in args.batch_sizes:
        bodies[size] = _requests(spans, size)
        if args.gzip:
            bodies[size] = [gzip.compress(body, 6, mtime=0) for body in bodies[size]]
    headers = {"content-type": "application/x-protobuf"}
    if args.gzip:
        headers["content-encoding"] = "gzip"
    for size, sent in bodies.items():
        print(
            f"{len(sent)} requests of {size} spans, {sum(map(len, sent)) / 1e6:.1f} MB "
            f"({'gzip' if args.gzip else 'identity'}) per phase",
            file=sys.stderr,
        )
    python = sys.executable
    proxy_argv = [python, "-m", "tracecheck", "proxy", "--listen", "127.0.0.1:0"]
    proxy_argv += ["--queue-size", str(args.queue_size), "--upstream-timeout", "30"]
    proxy_argv += shlex.split(args.proxy_args)
    source = args.tracecheck_path
    if args.overload is not None:
        size = args.batch_sizes[0]
        return _overload(args, proxy_argv, bodies[size], size, headers)
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    compare_argv = None
    if args.compare_args is not None:
        compare_argv = [*proxy_argv, *shlex.split(args.compare_args)]
    with (
        _process([python, __file__, "--null-upstream"], "stdout") as (upstream_process, upstream),
        _process([*proxy_argv, "--upstream", upstream], "stderr", source) as (proxy_process, proxy),
        ExitStack() as stack,
    ):
        servers = [
            Server("direct", upstream, upstream_process.pid),
            Server("proxy", proxy, proxy_process.pid),
        ]
        if compare_argv is not None:
            process, url = stack.enter_context(
                _process([*compare_argv, "--upstream", upstream], "stderr", source)
            )
            servers.append(Server("compare", url, process.pid))
        if args.forwarder:
            forwarder = [python, __file__, "--pass-through", upstream]
            process, url = stack.enter_context(_process(forwarder, "stdout"))
            servers.append(Server("forwarder", url, process.pid))
        proxies = [s for s in servers if s.name not in ("direct", "forwarder")]
        trips = {s.name: _round_trips(s.url, headers) for s in servers}
        pools = {
            (s.name, n): [stack.enter_context(_client()) for _ in range(n)]
            for s in servers
            for n in args.clients
        }
        # Warm up both paths (imports, detector compilation, connection pools).
        for size in args.batch_sizes:
            for server in servers:
                _load(
                    server, pools[server.name, min(args.clients)], bodies[size][:2], size, headers
                )
        idle = {s.name: _memory(s.pid)["VmRSS"] for s in proxies}
        phases, rounds = _rounds(args, servers, pools, bodies, headers, began)
        metrics = {s.name: httpx.get(f"{s.url}/metrics").text for s in proxies}
        memory = {s.name: _memory(s.pid) for s in proxies}
    load_after = os.getloadavg()[0]
    names = [s.name for s in servers if s.name != "direct"]
    cells = {key: _cell(phases[key], names) for key in phases}
    summary = _summary(
        args, proxy_argv, trips, cells, rounds, idle["proxy"], memory["proxy"], metrics["proxy"]
    )
    if compare_argv is not None:
        summary["settings"]["compare_command"] = _shown_command(compare_argv)
        summary["compare_memory_bytes"] = _memory_figures(idle["compare"], memory["compare"])
        summary["compare_counters"] = _counters(metrics["compare"])
    summary["seconds"] = round(time.perf_counter() - began, 1)
    summary["load_average"] = [load_before, load_after]
    _report(summary)
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    failed = sum(p.failures for runs in phases.values() for p in runs)
    return 1 if failed else 0


@dataclass(frozen=True)
class Answer:
    sent: float  # seconds after the overload began
    latency: float
    status: int  # 0: no answer (a transport error)


def _overload(
    args: argparse.Namespace,
    proxy_argv: list[str],
    bodies: Sequence[bytes],
    batch: int,
    headers: dict[str, str],
) -> int:
    """`--overload`: many clients, back to back, for a fixed time; every answer recorded."""
    budget = 30.0
    given = proxy_argv[proxy_argv.index("--upstream-timeout") :]
    for i, word in enumerate(given[:-1]):
        if word == "--upstream-timeout":
            budget = float(given[i + 1])
    clients = max(args.clients)
    python = sys.executable
    answers: list[Answer] = []
    lock = threading.Lock()
    with (
        _process([python, __file__, "--null-upstream"], "stdout") as (_upstream, upstream),
        _process([*proxy_argv, "--upstream", upstream], "stderr", args.tracecheck_path) as (
            proxy_process,
            proxy,
        ),
    ):
        # Warm up: one request, alone.
        with _client() as client:
            client.post(f"{proxy}/v1/traces", content=bodies[0], headers=headers)
        began = time.perf_counter()
        stop = began + args.overload

        def worker(index: int) -> None:
            with _client() as client:
                n = index
                while time.perf_counter() < stop:
                    body = bodies[n % len(bodies)]
                    n += clients
                    sent = time.perf_counter()
                    pause = 0.0
                    try:
                        response = client.post(f"{proxy}/v1/traces", content=body, headers=headers)
                        status = response.status_code
                        if status in (429, 503) and args.retry_after:
                            pause = float(response.headers.get("retry-after", "0") or 0)
                    except httpx.HTTPError:
                        status = 0
                    took = time.perf_counter() - sent
                    with lock:
                        answers.append(Answer(sent - began, took, status))
                    # As OTLP exporters do: wait what Retry-After asks (not past the end).
                    time.sleep(max(0.0, min(pause, stop - time.perf_counter())))

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - began
        metrics = httpx.get(f"{proxy}/metrics").text
        memory = _memory(proxy_process.pid)
    statuses: dict[str, int] = {}
    for answer in answers:
        statuses[str(answer.status)] = statuses.get(str(answer.status), 0) + 1
    latencies = sorted(a.latency for a in answers)
    ok = [a for a in answers if a.status == 200]
    late = [a for a in answers if a.latency > budget + 0.5]
    seconds = int(args.overload)
    per_second = [sum(1 for a in ok if second <= a.sent < second + 1) for second in range(seconds)]
    summary = {
        "command": _shown_command(proxy_argv),
        "clients": clients,
        "honour_retry_after": args.retry_after,
        "spans_per_request": batch,
        "request_mb": round(statistics.mean(map(len, bodies)) / 1e6, 2),
        "seconds": round(wall, 1),
        "budget": budget,
        "answers": len(answers),
        "statuses": statuses,
        "goodput_spans_per_s": round(len(ok) * batch / wall, 1),
        "latency_p50": round(latencies[len(latencies) // 2], 3) if latencies else None,
        "latency_p99": (
            round(latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))], 3)
            if latencies
            else None
        ),
        "latency_max": round(latencies[-1], 3) if latencies else None,
        "ok_latency_max": round(max(a.latency for a in ok), 3) if ok else None,
        "answers_past_budget_plus_half_s": len(late),
        "ok_by_second_sent": per_second,
        "ok_sent_after_5_s": sum(1 for a in ok if a.sent >= 5),
        "counters": _counters(metrics),
        "outcomes": {
            outcome: _number(
                _metric(metrics, f'tracecheck_proxy_requests_total{{outcome="{outcome}"}}'), 0
            )
            for outcome in ("forwarded", "overloaded", "queue_full", "upstream_unavailable")
        },
        "vm_hwm_mb": round(memory.get("VmHWM", 0) / 1e6, 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(summary, indent=2))
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


def _rounds(
    args: argparse.Namespace,
    servers: list[Server],
    pools: dict[tuple[str, int], list[httpx.Client]],
    bodies: dict[int, list[bytes]],
    headers: dict[str, str],
    began: float,
) -> tuple[dict[tuple[int, int], list[Phase]], int]:
    """Run the rounds (each cell once against each server); the phases by cell, and how many
    rounds ran."""
    phases: dict[tuple[int, int], list[Phase]] = {
        (size, n): [] for size in args.batch_sizes for n in args.clients
    }
    last = 0.0
    for number in range(1, args.rounds + 1):
        started = time.perf_counter()
        if number > 1 and started - began + last > args.time_limit:
            print(
                f"--time-limit {args.time_limit:g} s: round {number} not started", file=sys.stderr
            )
            return phases, number - 1
        first = (number - 1) % len(servers)  # who goes first rotates
        order = [*servers[first:], *servers[:first]]
        for (size, n), runs in phases.items():
            for server in order:
                runs.append(_load(server, pools[server.name, n], bodies[size], size, headers))
            done = {p.server: p for p in runs[-len(servers) :]}
            rates = ", ".join(f"{s.name} {done[s.name].spans_per_s:,.0f}" for s in servers)
            print(f"round {number}, {size} spans × {n} clients: spans/s {rates}", file=sys.stderr)
        last = time.perf_counter() - started
    return phases, args.rounds


# ---------------------------------------------------------------------------------------------
# Report


def _cell(runs: Sequence[Phase], proxies: Sequence[str] = ("proxy",)) -> dict[str, Any]:
    """A cell's figures: per server (`direct` and each of `proxies`), each proxy's ratios to
    `direct` (the first proxy's also at the top level), and `compare` over `proxy`."""
    merged = [_merge([p for p in runs if p.server == name]) for name in ("direct", *proxies)]
    direct = merged[0]
    out: dict[str, Any] = {"batch": direct.batch, "clients": direct.clients}
    for phase in merged:
        each = [_number(p.spans_per_s, 1) for p in runs if p.server == phase.server]
        out[phase.server] = {
            "spans_per_s_by_round": each,
            "requests": phase.requests,
            "spans": phase.spans,
            "failed": phase.failures,
            "wall_s": _number(phase.wall, 3),
            "spans_per_s": _number(phase.spans_per_s, 1),
            "p50_ms": _number(phase.percentile(0.5) * 1000, 2),
            "p99_ms": _number(phase.percentile(0.99) * 1000, 2),
            "server_cpu_s": _number(phase.cpu, 2),
            "spans_per_server_cpu_s": _number(_ratio(phase.spans, phase.cpu), 1),
        }
    d = out["direct"]
    for name in proxies:
        p = out[name]
        p["throughput_ratio"] = _number(_ratio(p["spans_per_s"], d["spans_per_s"]), 4)
        for q in ("p50", "p99"):
            both = (p[f"{q}_ms"], d[f"{q}_ms"])
            p[f"{q}_added_ms"] = None if None in both else _number(both[0] - both[1], 2)
            p[f"{q}_ratio"] = _number(_ratio(*both), 2)
    for key in ("throughput_ratio", "p50_added_ms", "p50_ratio", "p99_added_ms", "p99_ratio"):
        out[key] = out["proxy"][key]
    if "compare" in out:
        ratio = _ratio(out["compare"]["spans_per_s"], out["proxy"]["spans_per_s"])
        out["compare_over_proxy"] = _number(ratio, 4)
    if "forwarder" in out:
        f = out["forwarder"]
        for name in proxies:
            if name != "forwarder":
                p = out[name]
                p["over_forwarder"] = _number(_ratio(p["spans_per_s"], f["spans_per_s"]), 4)
                p["p99_over_forwarder"] = _number(_ratio(p["p99_ms"], f["p99_ms"]), 2)
    return out


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or not b else a / b


def _number(value: float | None, digits: int) -> float | None:
    """`value` rounded, None for a figure there is none of (JSON has no NaN)."""
    return None if value is None or value != value else round(value, digits)


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else float("nan")


def _summary(
    args: argparse.Namespace,
    proxy_argv: Sequence[str],
    trips: dict[str, dict[str, float]],
    cells: dict[tuple[int, int], dict[str, Any]],
    rounds: int,
    idle: int,
    memory: dict[str, int],
    metrics: str,
) -> dict[str, Any]:
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": {
            "nproc": os.cpu_count(),
            "arch": platform.machine(),
            "kernel": platform.release(),
            "python": platform.python_version(),
        },
        "code": _revision(args.tracecheck_path),
        "settings": {
            "spans_per_phase": args.spans,
            "batch_sizes": args.batch_sizes,
            "clients": args.clients,
            "rounds": rounds,
            "rounds_asked": args.rounds,
            "gzip": args.gzip,
            "proxy_command": _shown_command(proxy_argv),
        },
        "empty_request_ms": {
            name: {kind: round(s * 1000, 2) for kind, s in trip.items()}
            for name, trip in trips.items()
        },
        "cells": list(cells.values()),
        "proxy_memory_bytes": _memory_figures(idle, memory),
        "proxy_counters": _counters(metrics),
    }


def _shown_command(argv: Sequence[str]) -> str:
    return " ".join(["python", *argv[1:], "--upstream", "URL"])


def _memory_figures(idle: int, memory: dict[str, int]) -> dict[str, int]:
    return {"idle_rss": idle, "end_rss": memory["VmRSS"], **memory}


def _counters(metrics: str) -> dict[str, float | None]:
    return {
        name: _number(_metric(metrics, f"tracecheck_proxy_{name}_total"), 0)
        for name in ("spans_forwarded", "spans_dropped_unsafe")
    }


def _revision(source: Path | None) -> dict[str, Any]:
    """The commit of this tree and whether its proxy packages differ from it, or the directory
    the proxy ran from."""
    if source is not None:
        return {"tracecheck_path": str(source.resolve())}

    def git(*command: str) -> str:
        done = subprocess.run(
            ["git", *command], cwd=HERE, capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    return {
        "commit": git("rev-parse", "HEAD") or None,
        "uncommitted_changes": bool(
            git("status", "--porcelain", "--", "../tracecheck", "../redact")
        ),
    }


def _report(summary: dict[str, Any]) -> None:
    machine, settings = summary["machine"], summary["settings"]
    print(
        f"- machine: {machine['nproc']} CPUs (nproc), {machine['arch']}, "
        f"Linux {machine['kernel']}; Python {machine['python']}"
    )
    print(
        f"- {settings['rounds']} rounds (of {settings['rounds_asked']} asked) of "
        f"{settings['spans_per_phase']:,} spans per phase"
        f"{', gzip' if settings['gzip'] else ''}; `{settings['proxy_command']}`"
    )
    code = summary["code"]
    if "tracecheck_path" in code:
        print(f"- code: the tracecheck and redact packages in {code['tracecheck_path']}")
    else:
        changed = " with uncommitted changes in tracecheck/ or redact/"
        print(
            f"- code: {(code['commit'] or 'unknown')[:12]}"
            f"{changed if code['uncommitted_changes'] else ''}"
        )
    trips = summary["empty_request_ms"]
    print(
        "- empty request, median ms (fresh connection / reused keep-alive connection): "
        + ", ".join(f"{name} {t['fresh']:.2f} / {t['reused']:.2f}" for name, t in trips.items())
    )
    if trips["direct"]["reused"] > _STALL * 1000:
        print("- WARNING: reused connections to the null upstream stall: the baseline is wrong")
    compared = "compare" in summary["cells"][0]
    names = ("proxy", "compare") if compared else ("proxy",)
    for name in names:
        print()
        if compared:
            print(f"{name}: `{settings[name + '_command']}`\n")
        _table(summary["cells"], name)
    if compared:
        print()
        print("| spans/request | clients | proxy spans/s | compare spans/s | compare ÷ proxy |")
        print("|---:|---:|---:|---:|---:|")
        for cell in summary["cells"]:
            row = [
                cell["batch"],
                cell["clients"],
                _shown(cell["proxy"]["spans_per_s"], ",.0f"),
                _shown(cell["compare"]["spans_per_s"], ",.0f"),
                _shown(cell["compare_over_proxy"], ".2f", "×"),
            ]
            print("| " + " | ".join(map(str, row)) + " |")
    if "forwarder" in summary["cells"][0]:
        print()
        _table(summary["cells"], "forwarder")
        print()
        print(
            "| spans/request | clients | forwarder spans/s | forwarder p99 ms | "
            + " | ".join(
                f"{n} spans/s | {n} ÷ forwarder | {n} p99 ms | p99 ÷ forwarder's" for n in names
            )
            + " |"
        )
        print("|---:|---:|---:|---:|" + "---:|---:|---:|---:|" * len(names))
        for cell in summary["cells"]:
            f = cell["forwarder"]
            row = [
                cell["batch"],
                cell["clients"],
                _shown(f["spans_per_s"], ",.0f"),
                _shown(f["p99_ms"], ".1f"),
            ]
            for name in names:
                p = cell[name]
                row += [
                    _shown(p["spans_per_s"], ",.0f"),
                    _shown(p["over_forwarder"], ".2f", "×"),
                    _shown(p["p99_ms"], ".1f"),
                    _shown(p["p99_over_forwarder"], ".2f", "×"),
                ]
            print("| " + " | ".join(map(str, row)) + " |")
    print()
    for name in names:
        memory, counters = summary[f"{name}_memory_bytes"], summary[f"{name}_counters"]
        print(
            f"- {name} RSS (process tree): {memory['idle_rss'] / 1e6:.1f} MB idle after "
            f"warm-up, {memory['end_rss'] / 1e6:.1f} MB at the end, peak (VmHWM, summed) "
            f"{memory['VmHWM'] / 1e6:.1f} MB"
        )
        print(
            f"- {name} counters: {_shown(counters['spans_forwarded'], ',.0f')} spans forwarded, "
            f"{_shown(counters['spans_dropped_unsafe'], ',.0f')} dropped as unsafe"
        )
    load = summary["load_average"]
    print(
        f"\n_{summary['seconds']:.0f} s in all; 1-minute load average "
        f"{load[0]:.2f} at the start, {load[1]:.2f} at the end._"
    )


def _table(cells: Sequence[dict[str, Any]], name: str) -> None:
    print(
        f"| spans/request | clients | direct spans/s | {name} spans/s | ratio | "
        f"p50 direct | p50 {name} | p50 added | p99 direct | p99 {name} | p99 added | "
        f"{name} spans/CPU-s | requests | failed |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cell in cells:
        d, p = cell["direct"], cell[name]
        row = [
            cell["batch"],
            cell["clients"],
            _shown(d["spans_per_s"], ",.0f"),
            _shown(p["spans_per_s"], ",.0f"),
            _shown(p["throughput_ratio"], ".3f", "×"),
            _shown(d["p50_ms"], ".1f"),
            _shown(p["p50_ms"], ".1f"),
            f"{_shown(p['p50_added_ms'], '+.1f')} ({_shown(p['p50_ratio'], '.1f', '×')})",
            _shown(d["p99_ms"], ".1f"),
            _shown(p["p99_ms"], ".1f"),
            f"{_shown(p['p99_added_ms'], '+.1f')} ({_shown(p['p99_ratio'], '.1f', '×')})",
            _shown(p["spans_per_server_cpu_s"], ",.0f"),
            f"{d['requests']} + {p['requests']}",
            d["failed"] + p["failed"],
        ]
        print("| " + " | ".join(map(str, row)) + " |")


def _shown(value: float | None, spec: str, unit: str = "") -> str:
    return "–" if value is None else f"{value:{spec}}{unit}"


if __name__ == "__main__":
    raise SystemExit(main())
