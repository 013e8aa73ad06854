// A package registry on 127.0.0.1 for npm, serving only what is already on
// this machine: the tarballs the test packed, and the third-party packages the
// workspace install put under node_modules/.pnpm, each packed on request from
// its installed folder. npm resolves and installs from it as from any
// registry, so no request ever leaves loopback.
import { execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { lstat, readdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { basename, dirname, join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

interface Manifest {
  name: string
  version: string
  optionalDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  [key: string]: unknown
}

interface Entry {
  manifest: Manifest
  /** A packed tarball, or the installed folder to pack when asked. */
  tarball?: string
  folder?: string
}

export interface LoopbackRegistry {
  url: string
  /** `name@version` of every tarball npm downloaded. */
  downloaded: Set<string>
  /** Names npm asked for that the registry does not have. */
  missing: Set<string>
  /** Names some served package lists among its optional dependencies or optional peers. */
  optionalNames(): Set<string>
  close(): Promise<void>
}

/** The package folders of a pnpm virtual store (`node_modules/.pnpm/<id>/node_modules/<name>`, not the links beside them). */
async function storeFolders(store: string): Promise<string[]> {
  const folders: string[] = []
  for (const id of await readdir(store)) {
    const modules = join(store, id, 'node_modules')
    if (!existsSync(modules)) continue
    for (const entry of await readdir(modules)) {
      const candidates = entry.startsWith('@') ? (await readdir(join(modules, entry))).map((name) => join(modules, entry, name)) : [join(modules, entry)]
      for (const folder of candidates) {
        const info = await lstat(folder)
        if (info.isDirectory() && !info.isSymbolicLink()) folders.push(folder)
      }
    }
  }
  return folders
}

function compareVersions(a: string, b: string): number {
  const parts = (version: string) => version.split(/[.+-]/).slice(0, 3).map(Number)
  const [x, y] = [parts(a), parts(b)]
  for (let index = 0; index < 3; index++) if (x[index] !== y[index]) return (x[index] ?? 0) - (y[index] ?? 0)
  return 0
}

/**
 * Packs an installed folder as npm reads a tarball: every path under
 * `package/`, hard links (pnpm's store) stored as files. Not compressed: npm
 * reads a plain tar as well, and gzip would be most of the test's time.
 */
function packFolder(folder: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const name = basename(folder)
    const child = spawn('tar', ['-c', '--hard-dereference', '--owner=0', '--group=0', '-C', dirname(folder), `--transform=s|^${name.replace(/[.|]/g, '\\$&')}|package|`, name], { stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    // Exit 1 with only "file changed as we read it": pnpm's store files are hard links, and another test's
    // install linking the same file changes its ctime while tar reads it; the bytes (content-addressed) are the same.
    const onlyLinked = (text: string) => text.trim() !== '' && text.trim().split('\n').every((line) => /: file changed as we read it$/.test(line))
    child.on('close', (code) => (code === 0 || (code === 1 && onlyLinked(stderr)) ? resolve(Buffer.concat(chunks)) : reject(new Error(`tar of ${folder} exited ${code}: ${stderr}`))))
  })
}

export async function startLoopbackRegistry(options: { tarballs: string[]; store: string }): Promise<LoopbackRegistry> {
  const packages = new Map<string, Map<string, Entry>>()
  const add = (entry: Entry) => {
    const versions = packages.get(entry.manifest.name) ?? new Map<string, Entry>()
    // The packed workspace packages win over anything of the same name in the store.
    if (!versions.has(entry.manifest.version) || entry.tarball) versions.set(entry.manifest.version, entry)
    packages.set(entry.manifest.name, versions)
  }
  for (const folder of await storeFolders(options.store)) {
    add({ manifest: JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')), folder })
  }
  for (const tarball of options.tarballs) {
    const { stdout } = await run('tar', ['-x', '-z', '-O', '-f', tarball, 'package/package.json'], { maxBuffer: 1 << 20 })
    add({ manifest: JSON.parse(stdout), tarball })
  }

  const downloaded = new Set<string>()
  const missing = new Set<string>()
  const packed = new Map<string, Promise<Buffer>>()
  let url = ''

  const packument = (name: string, versions: Map<string, Entry>) => {
    const sorted = [...versions.keys()].sort(compareVersions)
    return {
      name,
      'dist-tags': { latest: sorted[sorted.length - 1] },
      versions: Object.fromEntries(
        sorted.map((version) => [version, { ...versions.get(version)!.manifest, _id: `${name}@${version}`, dist: { tarball: `${url}/-/tarball/${encodeURIComponent(name)}/${version}.tgz` } }]),
      ),
    }
  }

  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://registry').pathname)
    const fail = (status: number, message: string) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }))
    }
    if (request.method !== 'GET') return fail(405, 'read-only registry')
    const tarball = /^\/-\/tarball\/(.+)\/([^/]+)\.tgz$/.exec(path)
    if (tarball) {
      const entry = packages.get(tarball[1]!)?.get(tarball[2]!)
      if (!entry) return fail(404, 'no such tarball')
      const key = `${entry.manifest.name}@${entry.manifest.version}`
      downloaded.add(key)
      if (!packed.has(key)) packed.set(key, entry.tarball ? readFile(entry.tarball) : packFolder(entry.folder!))
      packed.get(key)!.then(
        (bytes) => response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length }).end(bytes),
        (error) => fail(500, String(error?.message ?? error)),
      )
      return
    }
    const name = path.slice(1)
    const versions = packages.get(name)
    if (!versions) {
      missing.add(name)
      return fail(404, 'not found')
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument(name, versions)))
  })
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    downloaded,
    missing,
    optionalNames: () =>
      new Set(
        [...packages.values()].flatMap((versions) =>
          [...versions.values()].flatMap(({ manifest }) => [
            ...Object.keys(manifest.optionalDependencies ?? {}),
            ...Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta?.optional).map(([name]) => name),
          ]),
        ),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
