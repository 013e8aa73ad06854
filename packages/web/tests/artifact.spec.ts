// The seam's artifact writer: dsh-host's writeArtifact, its failures as the seam's own error.
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { WebError, writeWebArtifact } from 'dsh-web'

describe('writeWebArtifact', () => {
  let root: string
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'dsh-web-artifact-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it("is WEB_ARTIFACT_WRITE_FAILED through the seam's writer", async () => {
    const file = join(root, 'a-file')
    await writeFile(file, 'in the way')
    await assert.rejects(writeWebArtifact('x', { directory: join(file, 'sub'), stem: 'z', extension: 'txt' }), (error: unknown) => {
      assert.ok(WebError.is(error))
      assert.equal((error as WebError).code, 'WEB_ARTIFACT_WRITE_FAILED')
      assert.match((error as Error).message, /could not be written/)
      return true
    })
  })
})
