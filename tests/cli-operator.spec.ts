// The dsh CLI for the person who runs it (issue 13): failures stop early and say
// which row, usage has help and suggestions, --json is always one document,
// operator flags on every command that boots, retries said on stderr.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { describeRetry } from '../packages/harness/src/cli/progress.js'
import { useColor } from '../packages/harness/src/cli/color.js'
import { CLI, dsh, LOOPBACK_ONLY, ROOT, tempHome } from './helpers.js'
import { PageServer } from './page-server.js'

/** A row that fails to start: curl's HOST:PORT:ADDR form in the fetch row's resolve map. */
const CURL_RESOLVE = '- id: web-fetch-http\n  config: { resolve: { "x.test": "443:10.0.0.1" } }\n'

async function mcpClient(args: string[], home: string): Promise<Client> {
  const env = { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: ROOT,
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)) as Record<string, string>,
    stderr: 'pipe',
  })
  const client = new Client({ name: 'dsh-test-client', version: '0.0.0' })
  await client.connect(transport)
  return client
}

describe('dsh fails loudly and early on a row that does not start', () => {
  let home: string
  let badRow: string
  before(async () => {
    home = await tempHome()
    badRow = join(home, 'curl-resolve.cordis.yml')
    await writeFile(badRow, CURL_RESOLVE)
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('dsh compose, tools, call, search, fetch and run-code exit 1 with one line naming the file, row, cause and fix, and no stack', async () => {
    const commands = [
      ['compose'],
      ['tools'],
      ['call', 'web_search', '{"queries":["x"]}'],
      ['search', 'x'],
      ['fetch', 'http://x.test/'],
      ['run-code', '-'],
    ]
    for (const command of commands) {
      const result = await dsh([...command, '--config', badRow], { home, input: 'return 1' })
      assert.equal(result.code, 1, `${command[0]}: ${result.stderr}`)
      assert.equal(result.stdout, '', command[0])
      const line = result.stderr.split('\n').find((text) => text.includes('row "web-fetch-http"'))
      assert.ok(line, `${command[0]}: ${result.stderr}`)
      assert.ok(line.startsWith(`dsh: ${badRow}: row "web-fetch-http" (dsh-web-fetch-http) failed to start: `), line)
      assert.match(line, /443:10\.0\.0\.1.*Fix: correct the row's config in/)
      assert.doesNotMatch(result.stderr, /^\s+at /m, `${command[0]} printed a stack`)
      assert.match(result.stderr, /--allow-failed-rows/)
    }
  })

  it('--json makes the failure the one document on stdout, with the rows', async () => {
    const result = await dsh(['tools', '--json', '--config', badRow], { home })
    assert.equal(result.code, 1)
    const document = JSON.parse(result.stdout)
    assert.equal(document.error.code, 'ROWS_FAILED')
    assert.equal(document.error.rows.length, 1)
    assert.match(document.error.rows[0], /row "web-fetch-http"/)
  })

  it('--allow-failed-rows goes on, saying which row is down', async () => {
    const result = await dsh(['compose', '--json', '--allow-failed-rows', '--config', badRow], { home })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(JSON.parse(result.stdout).rows.find((row: any) => row.id === 'web-fetch-http').status, 'failed')
    assert.match(result.stderr, /warning \(--allow-failed-rows\): .*row "web-fetch-http"/)
  })

  it('dsh mcp exits 1 before serving; with --allow-failed-rows it serves without the tool whose provider is missing', async () => {
    const refused = await dsh(['mcp', '--preset', 'standard', '--config', badRow], { home })
    assert.equal(refused.code, 1)
    assert.equal(refused.stdout, '')
    assert.match(refused.stderr, /row "web-fetch-http".*failed to start/)
    const served = await dsh(['mcp', '--preset', 'standard', '--allow-failed-rows', '--config', badRow], { home })
    assert.match(served.stderr, /dsh mcp: warning: web_fetch is not served: its fetch provider "http" is not registered \(rows not started: "web-fetch-http" failed\)/)
    const client = await mcpClient(['--preset', 'standard', '--allow-failed-rows', '--config', badRow], home)
    try {
      const { tools } = await client.listTools()
      assert.deepEqual(tools.map((tool) => tool.name), ['web_search'])
      const called = await client.callTool({ name: 'web_fetch', arguments: { url: 'http://x.test/' } })
      assert.equal(called.isError, true)
      assert.match(JSON.stringify(called.content), /There is no tool named \\"web_fetch\\"\. Available tools: web_search\./)
    } finally {
      await client.close()
    }
  })

  it('dsh mcp --http refuses to start on a failed row too', async () => {
    const result = await dsh(['mcp', '--http', '0', '--no-auth', '--preset', 'standard', '--config', badRow], { home })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /row "web-fetch-http".*failed to start/)
  })

  it('dsh mcp never serves a tool whose provider id no row registers, even when every row is up', async () => {
    const overlay = join(home, 'no-such-fetcher.cordis.yml')
    await writeFile(overlay, '- id: web\n  config: { searchProvider: deepseek-official, fetchProvider: nope }\n')
    const listed = JSON.parse((await dsh(['tools', '--json', '--preset', 'standard', '--config', overlay], { home })).stdout)
    assert.equal(listed.tools.find((tool: any) => tool.name === 'web_fetch').unavailable, 'its fetch provider "nope" is not registered')
    assert.equal(listed.tools.find((tool: any) => tool.name === 'web_search').unavailable, undefined)
    const client = await mcpClient(['--preset', 'standard', '--config', overlay], home)
    try {
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['web_search'])
    } finally {
      await client.close()
    }
  })
})

describe('dsh usage: help, version, suggestions, exit codes, one JSON document', () => {
  let home: string
  let echo: string
  before(async () => {
    home = await tempHome()
    echo = join(home, 'echo.cordis.yml')
    await writeFile(echo, '- id: echo\n  name: dsh-test-plugins/echo-tool\n  config: { prefix: cli }\n')
  })
  after(() => rm(home, { recursive: true, force: true }))

  it('--version prints the harness version; every command has --help with examples', async () => {
    const version = await dsh(['--version'], { home })
    assert.equal(version.code, 0)
    assert.equal(version.stdout.trim(), JSON.parse(await readFile(join(ROOT, 'packages/harness/package.json'), 'utf8')).version)
    for (const command of [['compose'], ['tools'], ['call'], ['search'], ['fetch'], ['run-code'], ['mcp'], ['doctor'], ['session', 'list'], ['session', 'prune']]) {
      const help = await dsh([...command, '--help'], { home })
      assert.equal(help.code, 0, command.join(' '))
      assert.match(help.stdout, new RegExp(`^Usage: dsh ${command.join(' ')}`), command.join(' '))
      assert.match(help.stdout, /Examples:\n  \$ dsh /, command.join(' '))
    }
    const fetchHelp = await dsh(['fetch', '--help'], { home })
    for (const flag of ['--private-host', '--resolve', '--allow-failed-rows', '--json']) assert.ok(fetchHelp.stdout.includes(flag), flag)
  })

  it('loads what each command uses: dsh tools --json --preset ptc and dsh compose --json load neither the MCP SDK, QuickJS, acorn, undici, Ajv, tldts, the readers nor (their layers known) yaml; dsh --version not even Cordis', async () => {
    const loaded = async (args: string[]) => {
      const file = join(home, `modules-${args.join('-')}.txt`)
      await promisify(execFile)(process.execPath, ['--import', join(ROOT, 'tests/support/loaded-modules.mjs'), CLI, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home, DSH_TEST_MODULES_FILE: file },
      })
      return (await readFile(file, 'utf8')).split('\n')
    }
    // undici comes with the first request, Ajv with the first tool call, tldts with the first rate-limited fetch, the readers
    // (extraction, the page judge, node:http and zlib) with the first fetch; yaml only when a layer is not in the home's cache.
    const lazy = ['@modelcontextprotocol', 'quickjs-emscripten', '/acorn', '/zod', '/node_modules/undici/', '/node_modules/ajv/', '/node_modules/tldts/', '/web-readers/dist/', 'node:http', 'node:zlib', '/node_modules/yaml/']
    const first = await loaded(['tools', '--json', '--preset', 'ptc'])
    assert.ok(first.some((url) => url.includes('/node_modules/yaml/')), 'the first start parses its layers')
    for (const args of [['tools', '--json', '--preset', 'ptc'], ['compose', '--json']]) {
      const urls = await loaded(args)
      assert.ok(urls.some((url) => url.includes('/web-fetch-http/dist/index.js')), `dsh ${args.join(' ')} booted the fetch provider`)
      assert.ok(urls.some((url) => url.includes('/provider-kit/dist/index.js')), `dsh ${args.join(' ')} booted a search provider`)
      for (const heavy of lazy) assert.ok(!urls.some((url) => url.includes(heavy)), `dsh ${args.join(' ')} loaded ${heavy}`)
    }
    const version = await loaded(['--version'])
    for (const heavy of ['/cordis', '/yaml', '/ajv', '/undici']) assert.ok(!version.some((url) => url.includes(heavy)), `dsh --version loaded ${heavy}`)
  })

  it('a misspelled command or flag exits 2 with a suggestion; with --json the error is the document', async () => {
    const command = await dsh(['compse'], { home })
    assert.equal(command.code, 2)
    assert.match(command.stderr, /unknown command 'compse' \(did you mean compose\?\)/)
    const flag = await dsh(['tools', '--jsn'], { home })
    assert.equal(flag.code, 2)
    assert.match(flag.stderr, /unknown option '--jsn' \(did you mean --json\?\)/)
    const asJson = await dsh(['tools', '--json', '--presett', 'x'], { home })
    assert.equal(asJson.code, 2)
    const document = JSON.parse(asJson.stdout)
    assert.equal(document.error.code, 'USAGE')
    assert.match(document.error.message, /did you mean --preset\?/)
    const none = await dsh([], { home })
    assert.equal(none.code, 2)
    assert.match(none.stderr, /Usage: dsh/)
  })

  it('a config error with --json is the document, with the composition\'s code', async () => {
    const bad = join(home, 'bad-key.cordis.yml')
    await writeFile(bad, '- id: web\n  config: { nope: 1 }\n')
    const result = await dsh(['compose', '--json', '--config', bad], { home })
    assert.equal(result.code, 1)
    assert.deepEqual(Object.keys(JSON.parse(result.stdout).error).sort(), ['code', 'message'])
    assert.equal(JSON.parse(result.stdout).error.code, 'COMPOSITION_INVALID')
  })

  it('a tool error goes to stderr in human mode, stdout stays empty; with --json it is the outcome document', async () => {
    const human = await dsh(['call', 'echo', '{"text":"x","headers":{}}', '--config', echo], { home })
    assert.equal(human.code, 1)
    assert.equal(human.stdout, '')
    assert.match(human.stderr, /dsh: echo failed: INVALID_ARGUMENT: .*unknown argument "headers"/)
    const json = await dsh(['call', 'echo', '{"text":"x","headers":{}}', '--json', '--config', echo], { home })
    assert.equal(JSON.parse(json.stdout).error.code, 'INVALID_ARGUMENT')
  })

  it('styles markdown only when colour is allowed: FORCE_COLOR on a pipe, never with NO_COLOR', async () => {
    const forced = await dsh(['call', 'echo', '{"text":"**bold**"}', '--config', echo], { home, env: { FORCE_COLOR: '1', NO_COLOR: undefined } })
    assert.equal(forced.stdout, 'cli: \x1b[1mbold\x1b[22m\n')
    const plain = await dsh(['call', 'echo', '{"text":"**bold**"}', '--config', echo], { home, env: { FORCE_COLOR: '1', NO_COLOR: '1' } })
    assert.equal(plain.stdout, 'cli: **bold**\n')
    assert.equal(useColor({ isTTY: true }, { NO_COLOR: '1' }), false)
    assert.equal(useColor({ isTTY: true }, {}), true)
    assert.equal(useColor({ isTTY: false }, { FORCE_COLOR: '0' }), false)
  })
})

describe('--private-host and --resolve on every command that boots', () => {
  let home: string
  const pages = new PageServer()
  before(async () => {
    home = await tempHome()
    await pages.listen()
  })
  after(async () => {
    await pages.close()
    await rm(home, { recursive: true, force: true })
  })

  it('curl\'s HOST:PORT:ADDR is refused with the form dsh takes, on mcp, run-code, call, search, compose and doctor', async () => {
    for (const command of [['mcp'], ['run-code', '-'], ['call', 'web_fetch'], ['search', 'x'], ['compose'], ['doctor']]) {
      const result = await dsh([...command, '--resolve', 'wiki.test:443:10.0.0.5'], { home })
      assert.equal(result.code, 2, command[0])
      assert.match(result.stderr, /--resolve takes HOST:ADDRESS, not curl's HOST:PORT:ADDRESS \("wiki\.test:443:10\.0\.0\.5"\).*Write --resolve wiki\.test:10\.0\.0\.5\./, command[0])
    }
    const ipv6 = await dsh(['compose', '--resolve', 'wiki.test:443:[::1]', '--json'], { home })
    assert.match(JSON.parse(ipv6.stdout).error.message, /Write --resolve wiki\.test:\[::1\]/)
  })

  it('dsh call web_fetch reaches a loopback page under another name with --resolve and --private-host, and is refused without', async () => {
    const url = `http://wiki.test:${pages.port}/article`
    const refused = await dsh(['call', 'web_fetch', JSON.stringify({ url }), '--preset', 'standard', '--resolve', 'wiki.test:127.0.0.1'], { home })
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /WEB_BLOCKED_ADDRESS/)
    const fetched = await dsh(['call', 'web_fetch', JSON.stringify({ url }), '--preset', 'standard', '--resolve', 'wiki.test:127.0.0.1', '--private-host', 'wiki.test', '--json'], { home })
    assert.equal(fetched.code, 0, fetched.stderr)
    assert.match(JSON.parse(fetched.stdout).content, /Paragraph 1 of the loopback article/)
    const composed = JSON.parse((await dsh(['compose', '--json', '--private-host', 'wiki.test'], { home })).stdout)
    const row = composed.rows.find((item: any) => item.id === 'web-fetch-http')
    assert.deepEqual(row.config.privateHosts, ['wiki.test'])
    assert.equal(row.configSources.privateHosts, 'command line')
  })
})

describe('Unicode and other spellings given to --private-host and --resolve', () => {
  let home: string
  const pages = new PageServer()
  before(async () => {
    home = await tempHome()
    await pages.listen()
  })
  after(async () => {
    await pages.close()
    await rm(home, { recursive: true, force: true })
  })

  it('are converted as the URL parser converts them (punycode, case, one trailing dot) and shown so by dsh compose', async () => {
    const result = await dsh(['compose', '--json', '--private-host', 'Bücher.TEST.', '--private-host', '10.0.0.0/8', '--resolve', 'BÜCHER.test.:127.0.0.1'], { home })
    assert.equal(result.code, 0, result.stderr)
    const row = JSON.parse(result.stdout).rows.find((item: any) => item.id === 'web-fetch-http')
    assert.deepEqual(row.config.privateHosts, ['xn--bcher-kva.test', '10.0.0.0/8'])
    assert.deepEqual(row.config.resolve, { 'xn--bcher-kva.test': '127.0.0.1' })
  })

  it('a name without a canonical form is a usage error (exit 2) saying why, never ignored', async () => {
    for (const flags of [['--private-host', 'wiki..test'], ['--resolve', 'wiki..test:127.0.0.1'], ['--private-host', 'wi$ki.test']]) {
      const result = await dsh(['compose', ...flags], { home })
      assert.equal(result.code, 2, flags.join(' '))
      assert.match(result.stderr, new RegExp(`${flags[0]} ".*": The host .* is not a host name every resolver and proxy reads the same way`), flags.join(' '))
    }
  })

  it('dsh call web_fetch reaches a loopback page under a Unicode name given to both flags', async () => {
    const url = `http://bücher.test:${pages.port}/article`
    // Direct whatever proxy the machine sets: the name is not on a loopback NO_PROXY.
    const direct = { HTTP_PROXY: undefined, http_proxy: undefined, HTTPS_PROXY: undefined, https_proxy: undefined }
    const fetched = await dsh(['call', 'web_fetch', JSON.stringify({ url }), '--preset', 'standard', '--resolve', 'bücher.test:127.0.0.1', '--private-host', 'BÜCHER.test', '--json'], { home, env: direct })
    assert.equal(fetched.code, 0, fetched.stderr)
    assert.match(JSON.parse(fetched.stdout).content, /Paragraph 1 of the loopback article/)
  })
})

describe('provider retries are said on stderr with their wait and reason', () => {
  let home: string
  let server: Server
  let base = ''
  let requests = 0
  before(async () => {
    home = await tempHome()
    server = createServer((request, response) => {
      requests++
      request.resume()
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
      response.end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Rate limit reached for requests' } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anthropic`
  })
  after(async () => {
    server.close()
    await rm(home, { recursive: true, force: true })
  })

  it('a 429 with retry-after: 1 prints "waiting 1 s" because of the 429, once per retry, and the search then fails', async () => {
    const result = await dsh(['search', 'node', 'lts'], { home, env: { DEEPSEEK_API_KEY: 'sk-test', DEEPSEEK_SEARCH_BASE_URL: base } })
    assert.equal(result.code, 1)
    assert.equal(requests, 3)
    const lines = result.stderr.split('\n').filter((line) => line.includes('waiting'))
    assert.deepEqual(lines, [
      'dsh: DeepSeek answered HTTP 429 (rate limited): waiting 1 s (as its retry-after asks) before retry 1 of 2',
      'dsh: DeepSeek answered HTTP 429 (rate limited): waiting 1 s (as its retry-after asks) before retry 2 of 2',
    ])
    assert.match(result.stderr, /web_search failed: /)
  })

  it('a retry-after of 7 s reads "waiting 7 s"', () => {
    assert.equal(
      describeRetry({ retry: 1, maxRetries: 2, waitMs: 7000, waitFrom: 'retry-after', reason: 'DeepSeek answered HTTP 429 (rate limited)' }),
      'DeepSeek answered HTTP 429 (rate limited): waiting 7 s (as its retry-after asks) before retry 1 of 2',
    )
  })
})
