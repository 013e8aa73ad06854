/**
 * pnpm bench:run-code [--memory-mb N] [--timeout-ms N] [--only NAME]
 *
 * How well run_code's memory limit holds. For each allocation pattern, a
 * fresh host process (this file with --child) mounts the tools service in
 * PTC mode with the limit, runs one warm-up run, resets its peak-RSS mark
 * (writing 5 to /proc/self/clear_refs; sampling covers kernels that refuse
 * it), runs the pattern, and reports where the run was stopped (error code,
 * the WebAssembly memory the interpreter held) and the host process's peak
 * RSS growth during the run, also as a ratio to the limit. An empty script is
 * the baseline row, and a last row runs two patterns at once in one host.
 *
 * The growth minus the limit is the per-run overhead (the worker thread, its
 * V8 heap, the interpreter's compiled code, a result in transit); the
 * figures in docs/security.md come from this table.
 */
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { promisify } from 'node:util'

export const PATTERNS: Record<string, string> = {
  'baseline (empty script)': `1`,
  'many small strings': `const list = []; for (;;) list.push('x' + list.length)`,
  'arrays of objects': `const list = []; for (;;) list.push({ index: list.length, items: [1, 2, 3] })`,
  'typed arrays': `const list = []; for (;;) list.push(new Uint8Array(65536))`,
  'big strings': `const list = []; for (;;) list.push('y'.repeat(1 << 20) + list.length)`,
  'closures': `const list = []; for (;;) { const n = list.length; list.push(() => n) }`,
  'Map and Set growth': `const map = new Map(), set = new Set(); for (let i = 0; ; i++) { map.set(i, { i }); set.add('key' + i) }`,
  'string doubling, read': `let text = 'x'; for (;;) { text = text + text; text.indexOf('y') }`,
  'string doubling': `let text = 'x'; for (;;) text = text + text`,
  'out-of-memory caught': `const list = []; for (;;) { try { list.push(new Uint8Array(1 << 20)) } catch {} }`,
  'a 10 MB result (just under the cap)': `'x'.repeat(10 * 1024 * 1024 - 2)`,
  'a result past the cap': `'x'.repeat(10 * 1024 * 1024 + 1)`,
}

interface ChildReport {
  codes: (string | null)[]
  memoryBytes: (number | null)[]
  growthBytes: number
  afterwards: unknown
  ms: number
}

const { values } = parseArgs({
  options: {
    child: { type: 'string' },
    'memory-mb': { type: 'string', default: '64' },
    'timeout-ms': { type: 'string', default: '60000' },
    only: { type: 'string' },
  },
})
const memoryMb = Number(values['memory-mb'])
const timeoutMs = Number(values['timeout-ms'])

if (values.child) await child(JSON.parse(values.child) as string[])
else await parent()

async function child(codes: string[]) {
  const { Context } = await import('cordis')
  const tools = await import('dsh-harness/tools')
  const runCode = await import('dsh-run-code')
  const status = (field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024
  const ctx = new Context()
  ctx.plugin(tools, { mode: 'ptc' })
  ctx.plugin(runCode, { memoryMb, maxTimeoutMs: 600_000 })
  await ctx.start()
  await ctx.tools.invoke('run_code', { code: '1' })
  let peakMarkReset = true
  try {
    writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    peakMarkReset = false
  }
  const before = status('VmRSS')
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2)
  const started = performance.now()
  const outcomes = await Promise.all(codes.map((code) => ctx.tools.invoke('run_code', { code, timeout_ms: timeoutMs })))
  const ms = performance.now() - started
  clearInterval(sampler)
  if (peakMarkReset) peak = Math.max(peak, status('VmHWM'))
  const after = await ctx.tools.invoke('run_code', { code: '1 + 1' })
  const report: ChildReport = {
    codes: outcomes.map((outcome) => outcome.error?.code ?? null),
    memoryBytes: outcomes.map((outcome) => (outcome.structured as { memoryBytes?: number })?.memoryBytes ?? null),
    growthBytes: peak - before,
    afterwards: (after.structured as { result?: unknown })?.result ?? null,
    ms,
  }
  console.log(JSON.stringify(report))
  await ctx.stop()
}

async function parent() {
  const self = fileURLToPath(import.meta.url)
  const rows: [string, string[]][] = Object.entries(PATTERNS).map(([name, code]) => [name, [code]])
  rows.push(['two at once (typed arrays + small strings)', [PATTERNS['typed arrays'], PATTERNS['many small strings']]])
  const mb = (bytes: number) => (bytes / 1048576).toFixed(1)
  console.log(`run_code memory limit: ${memoryMb} MB per run (WebAssembly memory maximum); node ${process.version}; fresh host process per row\n`)
  console.log('| pattern | limit MB | stopped with | interpreter memory MB | host peak RSS growth MB | growth / limit | growth - limit MB | afterwards | seconds |')
  console.log('|---|---|---|---|---|---|---|---|---|')
  let worstOverhead = -Infinity
  for (const [name, codes] of rows) {
    if (values.only && !name.includes(values.only)) continue
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', self, '--child', JSON.stringify(codes), '--memory-mb', String(memoryMb), '--timeout-ms', String(timeoutMs)], { maxBuffer: 1 << 20 })
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildReport
    const limitBytes = memoryMb * 1048576 * codes.length
    const overhead = report.growthBytes - limitBytes
    if (name !== 'baseline (empty script)') worstOverhead = Math.max(worstOverhead, overhead / codes.length)
    console.log(`| ${name} | ${memoryMb}${codes.length > 1 ? ` × ${codes.length}` : ''} | ${report.codes.map((code) => code ?? 'ok').join(', ')} | ${report.memoryBytes.map((bytes) => (bytes === null ? '-' : mb(bytes))).join(', ')} | ${mb(report.growthBytes)} | ${(report.growthBytes / limitBytes).toFixed(2)} | ${mb(overhead)} | ${JSON.stringify(report.afterwards)} | ${(report.ms / 1000).toFixed(1)} |`)
  }
  console.log(`\nworst growth past the limit, per run: ${mb(worstOverhead)} MB`)
}
