// The benchmarks as a new contributor runs them from a clone.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

describe('bench:extract', () => {
  it('without the shared benchmark beside the clone, exits 2 saying what it needs and how to point at it', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolveRun) => {
      execFile(process.execPath, ['--import', 'tsx', join(root, 'bench', 'extract.ts'), '--data', join(root, 'no-such-benchmark'), '--limit', '1'], { cwd: root }, (error, _stdout, stderr) =>
        resolveRun({ code: error ? (error.code as number) : 0, stderr }),
      )
    })
    assert.equal(code, 2, stderr)
    assert.match(stderr, /no-such-benchmark\/ground-truth\.json does not exist\. This run needs the article-extraction benchmark .* pass --data with its path\./)
  })
})
