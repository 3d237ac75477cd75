"""Scrubbing the other OTLP signals: logs and metrics, as the proxy receives them.

Apps that share `OTEL_EXPORTER_OTLP_ENDPOINT` send `/v1/logs` and `/v1/metrics` beside
`/v1/traces`, and GenAI instrumentations that capture message content as events
(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY|SPAN_AND_EVENT`) send prompts
and completions as log records. Both go through the redaction that spans go through, one
export request at a time, in either OTLP encoding:

```python
out = scrub_logs(body, "proto", profile="share", known_secrets=[key], pseudonym_key=k)
out.received, out.kept, out.dropped, out.reasons   # reasons: "UNSAFE (credential/…)", no values
out.payload                                        # the request to forward, or None
```

- `scrub_logs` redacts every string surface of each log record and drops (and counts) a
  record whose redacted form is not share-safe (`signals_logs`);
- `scrub_metrics` passes the numbers through and redacts every attribute, putting markers
  where redaction cannot make a value safe (`signals_metrics`);
- the requests are read and written by `signals_wire` (protobuf, and OTLP/JSON through
  `signals_json`), one unit at a time where one fails; a body that is not an export request
  raises `tracecheck.errors.TraceReadError`, naming the place and never a value.
"""

from __future__ import annotations

from redact.shipping.signals_core import ScrubbedSignal
from redact.shipping.signals_logs import scrub_logs
from redact.shipping.signals_metrics import scrub_metrics
from redact.shipping.signals_wire import SignalEncoding

__all__ = ["ScrubbedSignal", "SignalEncoding", "scrub_logs", "scrub_metrics"]
