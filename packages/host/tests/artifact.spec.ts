import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ArtifactWriteError, type SessionHandle, writeArtifact } from 'dsh-host'
import { WebError, writeWebArtifact } from 'dsh-web'

function sessionAt(dir: string): SessionHandle {
  return { id: 's', dir, append: async () => { throw new Error('not used') }, read: async () => [] }
}

describe('writeArtifact', () => {
  let root: string
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'dsh-artifact-'))
  })
  after(async () => {
    await rm(root, { recursive: true, force: true })
  })

  it("writes the whole content, 0600 in a 0700 artifacts folder of the session, with its size and hash", async () => {
    const dir = join(root, 'session-a')
    const ref = await writeArtifact('héllo artifact', { session: sessionAt(dir), stem: 'call 1/x', extension: 'md' })
    assert.match(ref.path, /session-a\/artifacts\/call-1-x-[0-9a-f]{8}\.md$/)
    const bytes = await readFile(ref.path)
    assert.equal(bytes.toString('utf8'), 'héllo artifact')
    assert.equal(ref.bytes, bytes.length)
    assert.equal(ref.sha256, createHash('sha256').update(bytes).digest('hex'))
    assert.equal((await stat(ref.path)).mode & 0o777, 0o600)
    assert.equal((await stat(join(dir, 'artifacts'))).mode & 0o777, 0o700)
  })

  it('refuses an artifacts folder that is a planted symbolic link, and writes nothing where it points', async () => {
    const dir = join(root, 'session-b')
    const elsewhere = join(root, 'elsewhere')
    await mkdir(dir, { recursive: true })
    await mkdir(elsewhere)
    await symlink(elsewhere, join(dir, 'artifacts'))
    await assert.rejects(writeArtifact('secret page text', { session: sessionAt(dir), stem: 'x', extension: 'txt' }), (error: unknown) => {
      assert.ok(ArtifactWriteError.is(error))
      assert.match((error as Error).message, /symbolic link/)
      return true
    })
    assert.deepEqual(await readdir(elsewhere), [])
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
