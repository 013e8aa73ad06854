// Where dsh finds its config folder: --config-dir, then $DSH_CONFIG_DIR, then
// the one shipped inside dsh-harness; never the working directory. A folder of
// the operator's own mounts the plugins installed beside dsh-harness.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { compose, CompositionError, findConfigDir, shippedConfigDir } from 'dsh-harness'

describe('the config folder', () => {
  let work: string
  let own: string
  let home: string
  before(async () => {
    work = await realpath(await mkdtemp(join(tmpdir(), 'dsh-config-dir-')))
    own = join(work, 'own')
    home = join(work, 'home')
    await mkdir(join(own, 'presets'), { recursive: true })
    await mkdir(home, { mode: 0o700 })
    // Rows naming installed packages, in a folder with no node_modules anywhere above it.
    await writeFile(join(own, 'base.cordis.yml'), '- id: tools\n  name: dsh-harness/tools\n- id: web\n  name: dsh-web\n- id: tool-web\n  name: dsh-tool-web\n  config: { search: false, fetch: true }\n')
    await writeFile(join(own, 'presets', 'mine.cordis.yml'), '- id: tool-web\n  disabled: true\n')
  })
  after(async () => {
    await rm(work, { recursive: true, force: true })
  })

  it('is the shipped one inside dsh-harness, with the base and the presets', () => {
    const shipped = shippedConfigDir()
    assert.equal(shipped, resolve(import.meta.dirname, '../config'))
    assert.ok(existsSync(join(shipped, 'base.cordis.yml')))
    assert.ok(existsSync(join(shipped, 'presets', 'standard.cordis.yml')))
    assert.equal(findConfigDir(undefined, {}), shipped)
  })

  it('takes --config-dir first, then $DSH_CONFIG_DIR', () => {
    const other = join(work, 'other')
    assert.equal(findConfigDir(own, { DSH_CONFIG_DIR: other }), own)
    assert.equal(findConfigDir(undefined, { DSH_CONFIG_DIR: own }), own)
    assert.equal(findConfigDir(undefined, { DSH_CONFIG_DIR: '  ' }), shippedConfigDir())
  })

  it('refuses a folder without base.cordis.yml, saying which setting named it and where the shipped one is', () => {
    const empty = join(work, 'other')
    assert.throws(() => findConfigDir(empty, {}), (error: Error) => {
      assert.ok(error instanceof CompositionError)
      assert.match(error.message, new RegExp(`^--config-dir ${empty} holds no base.cordis.yml`))
      assert.ok(error.message.includes(shippedConfigDir()))
      return true
    })
    assert.throws(() => findConfigDir(undefined, { DSH_CONFIG_DIR: empty }), /: \$DSH_CONFIG_DIR \(.*\) holds no base.cordis.yml/)
  })

  it('never looks at the working directory, even one holding config/base.cordis.yml', async () => {
    const repoLike = join(work, 'repo-like')
    await mkdir(join(repoLike, 'config'), { recursive: true })
    await writeFile(join(repoLike, 'config', 'base.cordis.yml'), '- id: web\n  name: dsh-web\n')
    const before = process.cwd()
    process.chdir(repoLike)
    try {
      assert.equal(findConfigDir(undefined, {}), shippedConfigDir())
    } finally {
      process.chdir(before)
    }
  })

  it("mounts a folder of one's own, outside any node_modules, from the packages installed beside dsh-harness", async () => {
    const composition = await compose({ configDir: own, home })
    try {
      assert.deepEqual(composition.layers, [join(own, 'base.cordis.yml')])
      assert.deepEqual(composition.rows().map((row) => [row.id, row.status]), [['tools', 'mounted'], ['web', 'mounted'], ['tool-web', 'mounted']])
      const tools = composition.ctx.get('tools') as { list(): { name: string }[] }
      assert.deepEqual(tools.list().map((tool) => tool.name), ['web_fetch'])
    } finally {
      await composition.dispose()
    }
    const preset = await compose({ configDir: own, home, preset: 'mine' })
    try {
      assert.deepEqual(preset.layers, [join(own, 'base.cordis.yml'), join(own, 'presets', 'mine.cordis.yml')])
      assert.equal(preset.rows().find((row) => row.id === 'tool-web')?.status, 'disabled')
    } finally {
      await preset.dispose()
    }
  })

  it('names both folders it looked from when a row names a package installed in neither', async () => {
    const file = join(work, 'ghost.cordis.yml')
    await writeFile(file, '- id: ghost\n  name: dsh-no-such-package\n')
    const error = await compose({ configDir: own, home, overlays: [file] }).then(() => undefined, (error) => error)
    assert.ok(error instanceof CompositionError)
    assert.ok(error.message.includes(`looked from ${own} and ${resolve(import.meta.dirname, '..')}`), error.message)
    assert.match(error.message, /dsh-cli installs dsh with every plugin the shipped compositions name/)
  })
})
