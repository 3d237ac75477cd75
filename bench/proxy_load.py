"""Load test of `tracecheck proxy` on loopback: throughput, added latency and peak memory.

    python bench/proxy_load.py                       # 20,480 spans, 4 clients, 2 rounds
    python bench/proxy_load.py --spans 40960 --clients 8 --gzip

Three processes on 127.0.0.1: a null OTLP/HTTP upstream (reads the body, answers 200 with an
empty `ExportTraceServiceResponse`), the proxy (`python -m tracecheck proxy`, default options
but `--queue-size`), and this script, whose `--clients` threads each post the workload's
512-span protobuf batches (the requests a `BatchSpanProcessor` sends) over their own keep-alive
`httpx.Client`, taking batches from one shared list until it is empty. Each round sends the
whole workload straight to the null upstream (the baseline) and then through the proxy, so both
see the same machine state; latency is per request, from sending the first byte to reading the
last. One more pass with a single client measures the latency the proxy adds to one request
when nothing queues. The proxy's memory is read from `/proc/<pid>/status` (VmRSS once it
listens and has warmed up, VmHWM at the end).
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import re
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from workload import DEFAULT_DIR, Workload, ensure  # noqa: E402

_PREFIX = struct.Struct(">I")
_EMPTY_RESPONSE = b""  # an empty ExportTraceServiceResponse encodes to no bytes


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
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/x-protobuf")],
        }
    )
    await send({"type": "http.response.body", "body": _EMPTY_RESPONSE})


def _serve_null() -> int:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1024)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(_null_app, log_level="warning", access_log=False, lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


# ---------------------------------------------------------------------------------------------
# Load


@dataclass(frozen=True)
class Phase:
    target: str
    clients: int
    requests: int
    spans: int
    wall: float
    latencies: tuple[float, ...]
    failures: int

    @property
    def spans_per_s(self) -> float:
        return self.spans / self.wall

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _batches(workload: Workload, root: Path) -> list[tuple[bytes, int]]:
    """(protobuf request, span count) for every 512-span record of the workload's stream."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    data = workload.path(root, "otlp-pbstream").read_bytes()
    out = []
    offset = 0
    while offset < len(data):
        (size,) = _PREFIX.unpack_from(data, offset)
        body = data[offset + 4 : offset + 4 + size]
        offset += 4 + size
        request = ExportTraceServiceRequest.FromString(body)
        count = sum(len(ss.spans) for rs in request.resource_spans for ss in rs.scope_spans)
        out.append((body, count))
    return out


def _load(url: str, batches: Sequence[tuple[bytes, int]], clients: int, coding: str) -> Phase:
    pending = list(reversed(batches))
    lock = threading.Lock()
    latencies: list[float] = []
    failures = [0]
    spans = [0]
    headers = {"content-type": "application/x-protobuf"}
    if coding == "gzip":
        headers["content-encoding"] = "gzip"

    def worker() -> None:
        with httpx.Client(timeout=60) as client:
            while True:
                with lock:
                    if not pending:
                        return
                    body, count = pending.pop()
                started = time.perf_counter()
                response = client.post(f"{url}/v1/traces", content=body, headers=headers)
                took = time.perf_counter() - started
                with lock:
                    latencies.append(took)
                    if response.status_code == 200:
                        spans[0] += count
                    else:
                        failures[0] += 1

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return Phase(url, clients, len(latencies), spans[0], wall, tuple(latencies), failures[0])


def _status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in bytes."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            out[name] = int(value.split()[0]) * 1024
    return out


@contextmanager
def _process(argv: list[str], port_from: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start a server process; yield it and its URL (the port read from stdout or stderr)."""
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    try:
        stream = process.stdout if port_from == "stdout" else process.stderr
        assert stream is not None
        line = stream.readline()
        pattern = r"^(\d+)$" if port_from == "stdout" else r"listening on http://127\.0\.0\.1:(\d+)"
        match = re.search(pattern, line.strip())
        if match is None:
            raise RuntimeError(f"{argv[1:4]}: did not start: {line!r}")
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


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else float("nan")


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spans", type=int, default=20_480, help="spans per round (512 a batch)")
    parser.add_argument("--clients", type=int, default=4, help="concurrent exporters")
    parser.add_argument("--rounds", type=int, default=2, help="direct-then-proxy rounds")
    parser.add_argument("--queue-size", type=int, default=16, help="the proxy's --queue-size")
    parser.add_argument("--gzip", action="store_true", help="send gzip bodies, as exporters may")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, help="workload directory")
    parser.add_argument("--null-upstream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.null_upstream:
        return _serve_null()

    workload = Workload(args.spans, 1, 1, 512)
    ensure(workload, args.out)
    batches = _batches(workload, args.out)
    coding = "gzip" if args.gzip else "identity"
    if args.gzip:
        batches = [(gzip.compress(body, 6, mtime=0), n) for body, n in batches]
    wire = sum(len(body) for body, _ in batches)
    print(
        f"{len(batches)} batches, {sum(n for _, n in batches)} spans, {wire / 1e6:.1f} MB "
        f"({coding}) per pass; {args.clients} clients",
        file=sys.stderr,
    )
    python = sys.executable
    began = time.perf_counter()
    load_before = os.getloadavg()[0]
    with (
        _process([python, __file__, "--null-upstream"], "stdout") as (_, upstream),
        _process(
            [
                python,
                "-m",
                "tracecheck",
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--upstream",
                upstream,
                "--queue-size",
                str(args.queue_size),
                "--upstream-timeout",
                "30",
            ],
            "stderr",
        ) as (proxy_process, proxy),
    ):
        # Warm up both paths (imports, detector compilation, connection pools).
        _load(upstream, batches[:2], 1, coding)
        _load(proxy, batches[:2], 1, coding)
        idle = _status(proxy_process.pid)["VmRSS"]
        direct: list[Phase] = []
        proxied: list[Phase] = []
        for n in range(args.rounds):
            direct.append(_load(upstream, batches, args.clients, coding))
            proxied.append(_load(proxy, batches, args.clients, coding))
            print(
                f"round {n + 1}: direct {direct[-1].spans_per_s:,.0f} spans/s, "
                f"proxy {proxied[-1].spans_per_s:,.0f} spans/s",
                file=sys.stderr,
            )
        single = batches[: max(8, len(batches) // 4)]
        direct_one = _load(upstream, single, 1, coding)
        proxy_one = _load(proxy, single, 1, coding)
        metrics = httpx.get(f"{proxy}/metrics").text
        memory = _status(proxy_process.pid)
    load_after = os.getloadavg()[0]
    _report(args, batches, direct, proxied, direct_one, proxy_one, idle, memory, metrics)
    print(
        f"\n_{time.perf_counter() - began:.0f} s in all; 1-minute load average "
        f"{load_before:.2f} at the start, {load_after:.2f} at the end._"
    )
    failed = sum(p.failures for p in (*direct, *proxied, direct_one, proxy_one))
    return 1 if failed else 0


def _merge(phases: Sequence[Phase]) -> Phase:
    return Phase(
        phases[0].target,
        phases[0].clients,
        sum(p.requests for p in phases),
        sum(p.spans for p in phases),
        sum(p.wall for p in phases),
        tuple(x for p in phases for x in p.latencies),
        sum(p.failures for p in phases),
    )


def _report(
    args: argparse.Namespace,
    batches: Sequence[tuple[bytes, int]],
    direct: Sequence[Phase],
    proxied: Sequence[Phase],
    direct_one: Phase,
    proxy_one: Phase,
    idle: int,
    memory: dict[str, int],
    metrics: str,
) -> None:
    d, p = _merge(direct), _merge(proxied)
    print(
        f"- machine: {os.cpu_count()} CPUs (nproc), {platform.machine()}, "
        f"Linux {platform.release()}; Python {platform.python_version()}"
    )
    print(
        f"- {args.rounds} rounds of {sum(n for _, n in batches):,} spans "
        f"({len(batches)} protobuf requests of 512 spans, "
        f"{sum(len(b) for b, _ in batches) / 1e6:.1f} MB{', gzip' if args.gzip else ''}), "
        f"{args.clients} client threads, proxy --queue-size {args.queue_size}, profile share"
    )
    print()
    print("| path | clients | requests | spans/s | p50 latency | p99 latency | failed |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, phase in (
        ("direct to the null upstream", d),
        ("through the proxy", p),
        ("direct, one client", direct_one),
        ("through the proxy, one client", proxy_one),
    ):
        print(
            f"| {label} | {phase.clients} | {phase.requests} | {phase.spans_per_s:,.0f} | "
            f"{_ms(phase.percentile(0.5))} | {_ms(phase.percentile(0.99))} | {phase.failures} |"
        )
    print()
    added_50 = proxy_one.percentile(0.5) - direct_one.percentile(0.5)
    added_99 = proxy_one.percentile(0.99) - direct_one.percentile(0.99)
    print(
        f"- added latency per 512-span request, one client: p50 +{_ms(added_50)}, "
        f"p99 +{_ms(added_99)} ({added_50 / 512 * 1e6:.0f} µs a span at p50); "
        f"with {args.clients} clients: p50 +{_ms(p.percentile(0.5) - d.percentile(0.5))}, "
        f"p99 +{_ms(p.percentile(0.99) - d.percentile(0.99))} (queueing included)"
    )
    print(
        f"- throughput through the proxy: {p.spans_per_s / d.spans_per_s:.3f}× of direct "
        f"({p.spans_per_s:,.0f} vs {d.spans_per_s:,.0f} spans/s); "
        f"mean per request {statistics.fmean(proxy_one.latencies) * 1000:.0f} ms"
    )
    forwarded = _metric(metrics, "tracecheck_proxy_spans_forwarded_total")
    dropped = _metric(metrics, "tracecheck_proxy_spans_dropped_unsafe_total")
    print(
        f"- proxy RSS: {idle / 1e6:.1f} MB idle after warm-up, peak (VmHWM) "
        f"{memory['VmHWM'] / 1e6:.1f} MB, {memory['VmRSS'] / 1e6:.1f} MB at the end; "
        f"largest request {max(len(b) for b, _ in batches) / 1e6:.2f} MB"
    )
    print(f"- proxy counters: {forwarded:,.0f} spans forwarded, {dropped:,.0f} dropped as unsafe")


if __name__ == "__main__":
    raise SystemExit(main())
