"""Sharing a trace: the share-safety gate that `verify-safe` applies to files, archives and
directories, and the streaming that lets `redact` write a file only once it is judged safe.

- `gate`: the verdict of a path (`verdict_of_path`): every file, every layer of compression,
  every member of an archive, every entry of a directory (hidden ones included) and every
  name, failing closed (UNKNOWN) on what it cannot read (special files are never opened).
- `archives`: the members of a zip or tar archive, one at a time, within the inflate limit.
- `credential_files`: files that hold credentials (`.env`, `.netrc`, `.pgpass`, git and cloud
  CLI configuration, kubeconfig), read in their own syntax so each field is judged by its key.
- `names`: file names, member names and link targets judged as strings, a part that is a token
  whole included, and shown with markers in place of what they hold.
- `baseline`: findings accepted by fingerprint (`verify-safe --baseline`), and written.
- `recorded_bytes`: the verdict of a file's bytes as recorded, whatever a reader kept of them.
- `recorded_claude`: the verdicts of a Claude Code record file, by its records and its spans.
- `staged`: spans in batches, and redacted output staged batch by batch, delivered whole.

What it may import: the readers and spans (`tracecheck.readers`, `tracecheck.spans`,
`tracecheck.errors`), the writers that give a redacted file back in its own format, and the
redaction core (`redact`, never `redact.shipping`). Never the contract language, the rules, the
checker, verdicts, reports, the fleet or the command line (`.importlinter`: the command line
imports this package, not the other way round). The modules import one another directly, never
from this `__init__`, which imports nothing: `import tracecheck.sharing.staged` loads no
redactor.
"""

from __future__ import annotations

__all__: list[str] = []
