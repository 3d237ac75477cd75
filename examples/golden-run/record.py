"""Record one run of the refund desk: its spans, encoded by the OpenTelemetry SDK's own OTLP
encoder (an `ExportTraceServiceRequest` in protobuf, as an OTLP exporter sends it), in a file.

    python record.py --out runs/refund.otlp.pb "Order A-1001 arrived broken. Please refund it."
    python record.py --fake-model --out runs/refund.otlp.pb "..."   # no model, no API key

The agent is the refund desk of ../openllmetry-openai/agent.py (a tool loop on the `openai`
client, traced by OpenLLMetry and its own GenAI tool spans). It asks the OpenAI API with
$OPENAI_API_KEY (or the server $OPENAI_BASE_URL names); `--fake-model` serves the scripted model
of ../fake_model.py on 127.0.0.1 instead and refuses every connection that would leave the
machine. Your agent records its runs its own way: an OTLP exporter to a collector's `file`
exporter, or an in-memory exporter as here; tracecheck reads any of them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "openllmetry-openai")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", help="what the customer asks the refund desk")
    parser.add_argument("--out", type=Path, required=True, help="the file to write (.otlp.pb)")
    parser.add_argument(
        "--fake-model", action="store_true", help="answer with the scripted model of fake_model.py"
    )
    args = parser.parse_args(argv)
    # The provider goes in before the agent is imported: it is instrumented at import.
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    if args.fake_model:
        import fake_model

        # The set-up the plugin does for a pytest session: the server, the client's settings.
        fake_model.pytest_configure(SimpleNamespace(stash={}))  # type: ignore[arg-type]
    from agent import ask

    print(ask(args.question))
    provider.force_flush()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(encode_spans(exporter.get_finished_spans()).SerializeToString())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
