// Runs the reference TypeScript trace-contract engine (agent-eval's `evaluateTraceContract`)
// over an OTLP/JSON Lines file, for bench/engine_compare.py. bench/engine_compare.py bundles
// this file with agent-eval's public source (esbuild; `agent-eval-trace-contracts` is aliased to
// its src/trace-contracts.ts) into bench/.data/ts_engine/; nothing of agent-eval is committed.
//
//   node engine.mjs --contract CONTRACT.json FILE [--verdict]
//
// Inside the clock, in this order: read the file in 16 MiB chunks, JSON.parse every line (one
// ExportTraceServiceRequest), turn every span into the `ContractSpan` the checker takes (every
// span attribute's AnyValue into a JS value, as the Python floor does), then evaluate the
// contract. Prints one JSON object on stdout: phase times, the verdict, the peak RSS (VmHWM) of
// this process.
//
// The contract is a tracecheck contract file (bench/engine_compare_contract.json), translated
// before the clock starts into this engine's operators with tracecheck's rule labels; only the
// keys that file uses are translated. bench/README.md says where the two engines' rules differ.

import { openSync, readFileSync, readSync, closeSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { evaluateTraceContract, traceContract } from 'agent-eval-trace-contracts'

const loaded = performance.now() // module evaluation done (bundle parsed and run)

// ── OTLP/JSON -> ContractSpan ─────────────────────────────────────────────────────────────

function anyValue(v) {
  if (v === undefined || v === null) return null
  if ('stringValue' in v) return v.stringValue
  if ('intValue' in v) return Number(v.intValue) // int64 is a string in OTLP/JSON
  if ('doubleValue' in v) return Number(v.doubleValue)
  if ('boolValue' in v) return v.boolValue
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(anyValue)
  if ('kvlistValue' in v) {
    const out = {}
    for (const kv of v.kvlistValue.values ?? []) out[kv.key] = anyValue(kv.value)
    return out
  }
  if ('bytesValue' in v) return v.bytesValue
  return null
}

function attributes(list) {
  const out = {}
  if (list) for (const kv of list) out[kv.key] = anyValue(kv.value)
  return out
}

const STATUS = { 1: 'ok', 2: 'error' }

// The checker's own span shape (`ContractSpan`): it resolves a tool name from `toolName`,
// `attributes['tool.name']` or `attributes.toolName`, so the OTel GenAI `gen_ai.tool.name` is
// copied into `toolName`; `startedAt` is epoch milliseconds, as agent-eval's spans carry.
function contractSpan(span) {
  const attrs = attributes(span.attributes)
  const tool = attrs['gen_ai.tool.name']
  const op = attrs['gen_ai.operation.name']
  return {
    spanId: span.spanId,
    name: span.name,
    kind: op === 'execute_tool' ? 'tool' : op === 'chat' ? 'llm' : op === 'invoke_agent' ? 'agent' : 'span',
    startedAt: Number(span.startTimeUnixNano) / 1e6,
    status: STATUS[span.status?.code],
    error: span.status?.code === 2 ? span.status.message : undefined,
    toolName: typeof tool === 'string' ? tool : undefined,
    attributes: attrs,
  }
}

function readSpans(path) {
  const spans = []
  let lines = 0
  const onLine = (text) => {
    if (text.trim() === '') return
    lines += 1
    const request = JSON.parse(text)
    for (const rs of request.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) spans.push(contractSpan(span))
      }
    }
  }
  const fd = openSync(path, 'r')
  let buf = Buffer.allocUnsafe(1 << 24)
  let start = 0
  let end = 0
  for (;;) {
    if (end === buf.length) {
      if (start > 0) {
        buf.copy(buf, 0, start, end) // keep the partial line, drop what was consumed
        end -= start
        start = 0
      } else {
        const bigger = Buffer.allocUnsafe(buf.length * 2) // one line longer than the buffer
        buf.copy(bigger, 0, 0, end)
        buf = bigger
      }
    }
    const n = readSync(fd, buf, end, buf.length - end, null)
    if (n === 0) break
    end += n
    const view = buf.subarray(0, end)
    let nl
    while ((nl = view.indexOf(10, start)) !== -1) {
      onLine(buf.toString('utf8', start, nl))
      start = nl + 1
    }
  }
  if (end > start) onLine(buf.toString('utf8', start, end))
  closeSync(fd)
  return { spans, lines }
}

// ── The contract: a tracecheck contract file, translated into this engine's operators ────

// Only the keys bench/engine_compare_contract.json uses are translated; any other key is
// refused rather than silently dropped.
const TRANSLATED = {
  '': ['$schema', 'name', 'description', 'tools', 'llm'],
  tools: ['required', 'forbidden', 'requiredOrder', 'orderMode', 'arguments'],
  llm: ['maxTotalTokens'],
}

// RFC 6901 JSON Pointer, as tracecheck resolves `tools.arguments[].pointer`.
function pointer(doc, ptr) {
  if (ptr === '') return { found: true, value: doc }
  let cur = doc
  for (const raw of ptr.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= cur.length) return { found: false }
      cur = cur[Number(token)]
    } else if (cur !== null && typeof cur === 'object' && Object.hasOwn(cur, token)) {
      cur = cur[token]
    } else {
      return { found: false }
    }
  }
  return { found: true, value: cur }
}

function jsonType(value) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value // string, number, boolean, object
}

// `always` over a custom predicate: a call of `tool` passes when its arguments (the JSON in
// gen_ai.tool.call.arguments) hold a value of `type` at `ptr`; other spans pass.
function argumentHasType(tool, ptr, type) {
  const check = (span) => {
    if (span.toolName !== tool) return true
    const raw = span.attributes?.['gen_ai.tool.call.arguments']
    if (typeof raw !== 'string') return false // arguments not captured: missing evidence fails
    let args
    try {
      args = JSON.parse(raw)
    } catch {
      return false
    }
    const at = pointer(args, ptr)
    return at.found && jsonType(at.value) === type
  }
  Object.defineProperty(check, 'name', { value: `arguments${ptr}Is${type}` })
  return check
}

// The engine has no aggregate over spans: a token ceiling is a `never` whose custom predicate
// keeps a running total of input + output tokens over the model calls it is shown (every span,
// once, in start order) and matches from the span that crosses the ceiling on; a model call
// without both counts matches at once (its total is unknown).
function tokensOver(ceiling) {
  let total = 0
  const check = (span) => {
    if (span.attributes?.['gen_ai.operation.name'] !== 'chat') return false
    const input = span.attributes['gen_ai.usage.input_tokens']
    const output = span.attributes['gen_ai.usage.output_tokens']
    if (typeof input !== 'number' || typeof output !== 'number') return true
    total += input + output
    return total > ceiling
  }
  Object.defineProperty(check, 'name', { value: `tokensOver${ceiling}` })
  check.total = () => total
  return check
}

function refuseUnknown(object, where) {
  for (const key of Object.keys(object)) {
    if (!TRANSLATED[where].includes(key)) throw new Error(`cannot translate ${where || 'contract'}.${key}`)
  }
}

// Labels are tracecheck's, so the two verdicts compare rule by rule.
function translate(spec) {
  refuseUnknown(spec, '')
  const builder = traceContract(spec.name)
  const tools = spec.tools ?? {}
  const llm = spec.llm ?? {}
  refuseUnknown(tools, 'tools')
  refuseUnknown(llm, 'llm')
  for (const tool of tools.required ?? []) builder.eventually({ tool }, `tools.required[${tool}]`)
  for (const tool of tools.forbidden ?? []) builder.never({ tool }, `tools.forbidden[${tool}]`)
  const order = tools.requiredOrder ?? []
  if (order.length > 0 && (tools.orderMode ?? 'start-order') !== 'start-order') {
    throw new Error('only orderMode start-order has an equivalent here (precedes orders by start)')
  }
  if (order.length === 1) builder.eventually({ tool: order[0] }, `tools.requiredOrder[${order[0]}]`)
  for (let i = 0; i + 1 < order.length; i++) {
    const [a, b] = [order[i], order[i + 1]]
    builder.precedes({ tool: a }, { tool: b }, `tools.requiredOrder[${a}->${b}]`)
  }
  ;(tools.arguments ?? []).forEach((arg, i) => {
    const keys = Object.keys(arg).filter((k) => !['tool', 'pointer'].includes(k)).sort()
    if (keys.join() !== 'type' && !(keys.join() === 'occurrence,type' && arg.occurrence === 'all')) {
      throw new Error(`tools.arguments[${i}]: only a type check over every call is translated`)
    }
    const label = `tools.arguments[${i}] ${arg.tool} ${arg.pointer === '' ? '(whole value)' : arg.pointer} type ${arg.type}`
    builder.always({ custom: argumentHasType(arg.tool, arg.pointer, arg.type) }, label)
  })
  let tokens = null
  if (llm.maxTotalTokens !== undefined) {
    tokens = tokensOver(llm.maxTotalTokens)
    builder.never({ custom: tokens }, 'llm.maxTotalTokens')
  }
  return { contract: builder.build(), tokens }
}

// ── Main ─────────────────────────────────────────────────────────────────────────────────

function vmStatus(field) {
  const status = readFileSync('/proc/self/status', 'utf8')
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)
  return match ? Number(match[1]) * 1024 : null
}

const args = process.argv.slice(2)
const path = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--contract')
const contractAt = args.indexOf('--contract')
const verdictOut = args.includes('--verdict')
if (!path || contractAt < 0) {
  process.stderr.write('usage: node engine.mjs --contract CONTRACT.json FILE [--verdict]\n')
  process.exit(2)
}

const { contract, tokens } = translate(JSON.parse(readFileSync(args[contractAt + 1], 'utf8')))
const baseRss = vmStatus('VmRSS')
const t0 = performance.now()
const { spans, lines } = readSpans(path)
const t1 = performance.now()
const verdict = evaluateTraceContract(contract, spans)
const t2 = performance.now()

const out = {
  spans: spans.length,
  lines,
  module_load_s: loaded / 1000, // process start -> bundle evaluated (performance.now() origin)
  read_s: (t1 - t0) / 1000,
  check_s: (t2 - t1) / 1000,
  work_s: (t2 - t0) / 1000,
  valid: verdict.valid,
  scores: verdict.scores,
  violations: verdict.violations.length,
  tokens_total: tokens ? tokens.total() : null,
  vmhwm: vmStatus('VmHWM'),
  base_rss: baseRss,
}
if (verdictOut) {
  const bySpan = {}
  for (const v of verdict.violations) (bySpan[v.rule] ??= []).push(v.spanId ?? null)
  out.violating_spans = bySpan
  out.llm_spans = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').length
}
process.stdout.write(`${JSON.stringify(out)}\n`)
