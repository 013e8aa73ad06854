import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'

const HOST = join(import.meta.dirname, 'fixtures/run-code-host.mjs')
const LIMIT_MB = 64
/**
 * The bound on the host's RSS growth in one run: the limit, and 48 MB for the
 * worker thread and everything else (bench:run-code measured at most 36 MB
 * past the limit). Before the fix, many small strings grew it by 140 to 160 MB
 * at this limit, arrays of objects by 300 MB, typed arrays by gigabytes.
 */
const BOUND_MB = LIMIT_MB + 48
const MEMORY = new RegExp(`memory limit of ${LIMIT_MB} MB`)

/** Allocation patterns that grew the host past its limit when only QuickJS's own accounting stood in the way, and how each must end. */
const PATTERNS: Record<string, { code: string; message: RegExp }> = Object.fromEntries(Object.entries({
  'many small strings': `const list = []; for (;;) list.push('x' + list.length)`,
  'arrays of objects': `const list = []; for (;;) list.push({ index: list.length, items: [1, 2, 3] })`,
  'typed arrays': `const list = []; for (;;) list.push(new Uint8Array(65536))`,
  'big strings': `const list = []; for (;;) list.push('y'.repeat(1 << 20) + list.length)`,
  'closures': `const list = []; for (;;) { const n = list.length; list.push(() => n) }`,
  'Map and Set growth': `const map = new Map(), set = new Set(); for (let i = 0; ; i++) { map.set(i, { i }); set.add('key' + i) }`,
  'out-of-memory errors caught and ignored': `const list = []; for (;;) { try { list.push(new Uint8Array(1 << 20)) } catch {} }`,
}).map(([name, code]) => [name, { code, message: MEMORY }]))
// Concatenation builds ropes without copying, so doubling alone reaches QuickJS's string length limit before the memory limit.
PATTERNS['string doubling'] = { code: `let text = 'x'; for (;;) text = text + text`, message: /string longer than the interpreter allows/ }

async function runInOwnHost(code: string) {
  const { stdout } = await promisify(execFile)(process.execPath, [HOST, JSON.stringify({ memoryMb: LIMIT_MB, code, timeoutMs: 60_000 })], {
    cwd: join(import.meta.dirname, '..'),
    maxBuffer: 1 << 20,
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { code: string | null; message: string | null; growthBytes: number; afterwards: unknown }
}

// Each pattern runs in its own process, so two at a time measure as cleanly as one.
describe('run_code memory limit (each pattern in a host process of its own)', { concurrency: 2 }, () => {
  for (const [name, { code, message }] of Object.entries(PATTERNS)) {
    it(`stops ${name} with CODE_RESOURCE_LIMIT, keeps the host within the limit plus overhead, and the host serves on`, async () => {
      const run = await runInOwnHost(code)
      assert.equal(run.code, 'CODE_RESOURCE_LIMIT', JSON.stringify(run))
      assert.match(run.message!, message)
      assert.ok(run.growthBytes < BOUND_MB * 1048576, `the host grew by ${Math.round(run.growthBytes / 1048576)} MB, more than ${BOUND_MB} MB`)
      assert.equal(run.afterwards, 2)
    })
  }
})
