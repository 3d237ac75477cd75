// Stand-in for `@tangle-network/agent-interface`, which agent-eval's source imports but which
// is not published on npm. agent-eval's trace-contract checker reaches it only through
// `certificationEvidenceDigest` (verdict.ts -> verdict-cache.ts -> ledger-core/canonical.ts):
// one sha-256 over the canonical JSON (RFC 8785) of each verdict's scores and violations.
// This shim implements those three functions; nothing else of the package is used.

import { createHash } from 'node:crypto'

function canonical(value) {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('non-finite number has no canonical JSON')
      return JSON.stringify(value) // ECMAScript number serialisation is RFC 8785's
    case 'object': {
      if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) {
        throw new TypeError('class instance has no canonical JSON')
      }
      // Keys sorted by UTF-16 code unit (the default sort), as RFC 8785 requires.
      const keys = Object.keys(value).sort()
      const parts = []
      for (const key of keys) {
        if (value[key] === undefined) throw new TypeError(`undefined at key ${key}`)
        parts.push(`${JSON.stringify(key)}:${canonical(value[key])}`)
      }
      return `{${parts.join(',')}}`
    }
    default:
      throw new TypeError(`${typeof value} has no canonical JSON`)
  }
}

export function canonicalCandidateJson(value) {
  return canonical(value)
}

export function canonicalCandidateBytes(value) {
  return new TextEncoder().encode(canonical(value))
}

export function sha256Bytes(bytes) {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}
