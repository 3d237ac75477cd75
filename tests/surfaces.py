"""Helpers for tests of the scrubbing surfaces: the proxy driven in-process (ASGI, a mock
upstream), OTLP/JSON documents with spans nested to a given depth."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from redact.shipping import ProxyApp, ProxySettings

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@dataclass
class Upstream:
    """A mock OTLP/HTTP collector: accepts everything and keeps what it received."""

    bodies: list[bytes] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.content)
        media = request.headers.get("content-type", "application/x-protobuf")
        return httpx.Response(
            200, content=b"{}" if "json" in media else b"", headers={"content-type": media}
        )


def proxy_post(
    body: bytes, content_type: str, headers: dict[str, str] | None = None, **settings: Any
) -> tuple[httpx.Response, ProxyApp, Upstream]:
    """POST `body` to /v1/traces of a fresh proxy in front of a mock upstream."""
    upstream = Upstream()
    app = ProxyApp(
        ProxySettings(upstream="http://collector.test", **settings),
        transport=httpx.MockTransport(upstream),
    )

    async def go() -> httpx.Response:
        await app.startup()
        try:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://proxy.test"
            ) as client:
                sent = {"content-type": content_type, **(headers or {})}
                return await client.post("/v1/traces", content=body, headers=sent)
        finally:
            await app.shutdown()

    return asyncio.run(go()), app, upstream


class Raw:
    """JSON text put into a document as it is (nested deeper than orjson writes). Not a
    dataclass: orjson would write a dataclass itself instead of asking for it."""

    __slots__ = ("text",)

    def __init__(self, text: bytes) -> None:
        self.text = text


def kvlist(depth: int, leaf: str = "leaf") -> Raw:
    """An OTLP/JSON AnyValue: `depth` key-value lists, one inside the other, around a string."""
    head = b'{"kvlistValue":{"values":[{"key":"k","value":' * depth
    return Raw(head + orjson.dumps({"stringValue": leaf}) + b"}]}}" * depth)


def otlp_span(span_id: str, name: str, **attributes: Raw) -> dict[str, Any]:
    return {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000000100000000",
        "attributes": [{"key": key, "value": value} for key, value in attributes.items()],
    }


def otlp_document(*spans: dict[str, Any], resource: dict[str, Raw] | None = None) -> bytes:
    entry: dict[str, Any] = {"scopeSpans": [{"scope": {"name": "t"}, "spans": list(spans)}]}
    if resource is not None:
        entry["resource"] = {"attributes": [{"key": k, "value": v} for k, v in resource.items()]}
    raws: list[bytes] = []

    def placeholder(value: Any) -> str:
        if not isinstance(value, Raw):
            raise TypeError
        raws.append(value.text)
        return f"\x00raw{len(raws) - 1}"

    text = orjson.dumps({"resourceSpans": [entry]}, default=placeholder)
    for number, raw in enumerate(raws):
        text = text.replace(orjson.dumps(f"\x00raw{number}"), raw)
    return text
