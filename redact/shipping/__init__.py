"""The shipping wing: what carries spans out of a process once they are scrubbed.

- `wire`: the hosted-ingest wire (version, paths, pivots, what a valid span row is), written
  once for the shipper and the receiver;
- `http`: the HTTP plumbing both servers and the shipper share (ASGI request reading, header
  rules, Retry-After parsing and capping);
- the OTLP/HTTP scrubbing proxy (`proxy`, with `otlp`, `bodies`, `signals`, `upstream`,
  `metrics`, `pool`);
- the shipper client (`shipment`, `shipper`) and the reference receiver (`ingest`, `tenants`,
  `store`).

Nothing here is imported by `redact`'s redaction core, and building the CLI's parser imports
none of it: the servers and their dependencies (the `serve` extra) load when a command runs.
"""
