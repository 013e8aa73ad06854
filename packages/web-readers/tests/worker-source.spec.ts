// The extraction worker is loaded by file path beside its pool (workerModuleBeside
// in dsh-host): the TypeScript source under tsx, the built bundle's worker, written beside it in dist/, when built.
import assert from 'node:assert/strict'
import { appendFile, cp, mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { describe, it } from 'node:test'
import { ExtractPool } from '../src/workers/extract-pool.js'

describe('extraction worker code', () => {
  const html = (text: string) => new Uint8Array(Buffer.from(`<p>${text}</p>`))

  it('runs from the TypeScript source under tsx, so an edit needs no build (it ran ../dist/extract-worker.js, which can be stale)', async () => {
    const pool = new ExtractPool({ size: 1 })
    try {
      assert.equal(pool.workerSource.href, new URL('../src/workers/extract-worker.ts', import.meta.url).href)
    } finally {
      await pool.close()
    }
    // A copy of src/ inside the package (so that its imports resolve), whose
    // worker is edited to mark every reply: no build has that mark.
    const copy = await mkdtemp(fileURLToPath(new URL('../.worker-source-test-', import.meta.url)))
    try {
      await cp(fileURLToPath(new URL('../src', import.meta.url)), join(copy, 'src'), { recursive: true })
      await appendFile(
        join(copy, 'src', 'workers', 'extract-worker.ts'),
        `\n{ const port = parentPort!; const post = port.postMessage.bind(port)\n` +
          `  port.postMessage = (reply: any) => post({ ...reply, output: { ...reply.output, extractor: 'edited source' } }) }\n`,
      )
      const copied = (await import(pathToFileURL(join(copy, 'src', 'workers', 'extract-pool.ts')).href)) as { ExtractPool: typeof ExtractPool }
      const edited = new copied.ExtractPool({ size: 1 })
      try {
        const output = await edited.convert({ bytes: html('edited'), kind: 'html', url: 'https://x.test/', format: 'text', extract: 'full' }, new AbortController().signal)
        assert.equal(output.text, 'edited')
        assert.equal(output.extractor, 'edited source', 'the worker ran the edited source')
      } finally {
        await edited.close()
      }
    } finally {
      await rm(copy, { recursive: true, force: true })
    }
  })

  it('runs the built worker beside the built bundle, as in production', async () => {
    const built = (await import(new URL('../dist/index.js', import.meta.url).href)) as { ExtractPool: typeof ExtractPool }
    const pool = new built.ExtractPool({ size: 1 })
    try {
      assert.equal(pool.workerSource.href, new URL('../dist/extract-worker.js', import.meta.url).href)
      const output = await pool.convert({ bytes: html('built'), kind: 'html', url: 'https://x.test/', format: 'text', extract: 'full' }, new AbortController().signal)
      assert.equal(output.text, 'built')
    } finally {
      await pool.close()
    }
  })
})
