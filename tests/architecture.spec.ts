// The package graph reads in one direction (contract at the bottom, the seam
// and the provider kit above it, providers and tools above those, the host
// beside them, dsh-mcp on the host, and dsh-cli on top: the command with
// dsh-mcp's commands and what its base mounts), and
// no file takes part in an import circle.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const packagesDir = join(root, 'packages')

/** What each workspace package may depend on at run time: only packages below it. */
const LAYERS: Record<string, string[]> = {
  'dsh-host': [],
  'dsh-web': ['dsh-host'],
  // The egress policy every provider applies (address policy, pinned and proxied dispatch, the lazy undici): a library below them and the kit.
  'dsh-web-egress': ['dsh-host', 'dsh-web'],
  'dsh-provider-kit': ['dsh-host', 'dsh-web', 'dsh-web-egress'],
  // The readers every fetch provider turns bytes into text with (HTML extraction, PDF, feeds, JSON, the page-outcome judge, paging): a library below them.
  'dsh-web-readers': ['dsh-host', 'dsh-web'],
  'dsh-web-fetch-http': ['dsh-host', 'dsh-web', 'dsh-web-egress', 'dsh-web-readers'],
  'dsh-web-fetch-browser': ['dsh-host', 'dsh-web', 'dsh-web-egress', 'dsh-web-readers'],
  'dsh-web-search-deepseek': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-openai': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-anthropic': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-gemini': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-searxng': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-brave': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-tavily': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-exa': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-web-search-perplexity': ['dsh-host', 'dsh-web', 'dsh-provider-kit'],
  'dsh-tool-web': ['dsh-host', 'dsh-web'],
  'dsh-state-redis': ['dsh-host', 'dsh-web'],
  'dsh-run-code': ['dsh-host'],
  'dsh-harness': ['dsh-host'],
  // The MCP server and its commands: on the contract's services, and on the host for booting a command's composition.
  'dsh-mcp': ['dsh-host', 'dsh-harness'],
  // What a user installs: the host and every plugin the shipped compositions name. Nothing depends on it.
  'dsh-cli': ['dsh-harness', 'dsh-mcp', 'dsh-run-code', 'dsh-web', 'dsh-state-redis', 'dsh-tool-web', 'dsh-web-fetch-http', 'dsh-web-fetch-browser', 'dsh-web-search-deepseek', 'dsh-web-search-openai', 'dsh-web-search-searxng', 'dsh-web-search-brave', 'dsh-web-search-anthropic', 'dsh-web-search-gemini', 'dsh-web-search-tavily', 'dsh-web-search-exa', 'dsh-web-search-perplexity'],
}

/** The packages above every plugin, which may depend on the host: the host itself, the MCP server whose commands it runs, and the command that bundles them. */
const HOST_SIDE = new Set(['dsh-harness', 'dsh-mcp', 'dsh-cli'])

interface WorkspacePackage {
  name: string
  dir: string
  dependencies: string[]
  devDependencies: string[]
}

function workspacePackages(): WorkspacePackage[] {
  return readdirSync(packagesDir)
    .filter((entry) => statSync(join(packagesDir, entry, 'package.json'), { throwIfNoEntry: false }))
    .map((entry) => {
      const manifest = JSON.parse(readFileSync(join(packagesDir, entry, 'package.json'), 'utf8'))
      return {
        name: manifest.name,
        dir: join(packagesDir, entry),
        dependencies: Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }),
        devDependencies: Object.keys(manifest.devDependencies ?? {}),
      }
    })
}

function sourceFiles(dir: string): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(path))
    else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path)
  }
  return files
}

/** Every module specifier a file imports or re-exports, static or dynamic, types included. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const found: string[] = []
  for (const match of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"`]*?\sfrom\s+['"]([^'"]+)['"]|(?:^|[\s;])import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
    found.push(match[1] ?? match[2] ?? match[3]!)
  }
  return found
}

/** A relative specifier as the .ts file it names (NodeNext writes .js for .ts). */
function resolveRelative(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier)
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), base, `${base}.ts`, join(base, 'index.ts')]) {
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate
  }
  return undefined
}

function workspaceName(specifier: string, names: Set<string>): string | undefined {
  const name = specifier.split('/')[0]!
  return names.has(name) ? name : undefined
}

/** The cycles of a directed graph, each as the list of its nodes (Tarjan's strongly connected components). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string) => {
    indices.set(node, index)
    low.set(node, index)
    index++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indices.get(next)!))
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component)
    }
  }
  for (const node of graph.keys()) if (!indices.has(node)) visit(node)
  return found
}

describe('architecture', () => {
  const packages = workspacePackages()
  const names = new Set(packages.map((pkg) => pkg.name))

  it('knows every workspace package and its layer', () => {
    assert.deepEqual([...names].sort(), Object.keys(LAYERS).sort())
  })

  it('declares run-time dependencies only on packages below it, and no plugin any on the host side (dsh-harness, dsh-mcp or dsh-cli)', () => {
    for (const pkg of packages) {
      const internal = pkg.dependencies.filter((dep) => names.has(dep))
      for (const dep of internal) assert.ok(LAYERS[pkg.name]!.includes(dep), `${pkg.name} depends on ${dep}, which is not below it`)
      if (!HOST_SIDE.has(pkg.name)) {
        for (const host of HOST_SIDE) assert.ok(!pkg.dependencies.includes(host) && !pkg.devDependencies.includes(host), `${pkg.name} depends on ${host}`)
      }
    }
  })

  it("imports, in its sources, only workspace packages it declares and that are below it", () => {
    for (const pkg of packages) {
      for (const file of sourceFiles(join(pkg.dir, 'src'))) {
        for (const specifier of specifiers(file)) {
          const target = workspaceName(specifier, names)
          if (!target || target === pkg.name) continue
          const where = relative(root, file)
          assert.ok(pkg.dependencies.includes(target), `${where} imports ${specifier}, which ${pkg.name} does not declare`)
          assert.ok(LAYERS[pkg.name]!.includes(target), `${where} imports ${specifier}, which is not below ${pkg.name}`)
        }
      }
    }
  })

  it("imports, in its tests, only workspace packages its manifest declares (a relative path into another package counts as that package)", () => {
    const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const suites = [
      ...packages.map((pkg) => ({ name: pkg.name, dir: pkg.dir, tests: join(pkg.dir, 'tests'), declared: new Set([...pkg.dependencies, ...pkg.devDependencies]) })),
      // The cross-package tests and the benchmarks belong to the workspace's root package.
      ...['tests', 'bench'].map((folder) => ({ name: 'the workspace root', dir: root, tests: join(root, folder), declared: new Set(Object.keys({ ...rootManifest.dependencies, ...rootManifest.devDependencies })) })),
    ]
    const owner = (file: string) => packages.find((pkg) => file.startsWith(`${pkg.dir}/`))?.name
    const problems: string[] = []
    let checked = 0
    for (const suite of suites) {
      if (!statSync(suite.tests, { throwIfNoEntry: false })?.isDirectory()) continue
      for (const file of sourceFiles(suite.tests)) {
        checked++
        for (const specifier of specifiers(file)) {
          const target = specifier.startsWith('.') ? owner(resolveRelative(file, specifier) ?? resolve(dirname(file), specifier)) : workspaceName(specifier, names)
          if (!target || target === suite.name || suite.declared.has(target)) continue
          problems.push(`${relative(root, file)} imports ${specifier} (${target}), which ${suite.name} does not declare`)
        }
      }
    }
    assert.ok(checked > 100, `the walk found the tests (${checked} files)`)
    assert.deepEqual(problems, [])
  })

  it('has no import circle between files, within or across packages', () => {
    const graph = new Map<string, Set<string>>()
    const entry = (name: string) => join(packagesDir, packages.find((pkg) => pkg.name === name)!.dir.split('/').pop()!, 'src', 'index.ts')
    for (const pkg of packages) {
      for (const file of sourceFiles(join(pkg.dir, 'src'))) {
        const edges = new Set<string>()
        for (const specifier of specifiers(file)) {
          if (specifier.startsWith('.')) {
            const target = resolveRelative(file, specifier)
            if (target) edges.add(target)
          } else {
            const target = workspaceName(specifier, names)
            if (target && target !== pkg.name) edges.add(entry(target))
          }
        }
        graph.set(file, edges)
      }
    }
    assert.ok(graph.size > 50, `the walk found the sources (${graph.size} files)`)
    const found = cycles(graph).map((cycle) => cycle.map((file) => relative(root, file)).sort().join(' <-> '))
    assert.deepEqual(found, [], `import circles:\n${found.join('\n')}`)
  })

  it('finds a circle when there is one (the check itself works)', () => {
    const graph = new Map<string, Set<string>>([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ])
    assert.deepEqual(cycles(graph).map((cycle) => cycle.sort()), [['a', 'b', 'c']])
  })
})
