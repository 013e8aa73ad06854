import assert from 'node:assert/strict'
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CLI, dsh, LOOPBACK_ONLY, ROOT } from './helpers.js'

/** A real `dsh mcp --http 127.0.0.1:0 ARGS` process; its address is read from the line it prints at start. */
export class HttpDsh {
  stderr = ''
  private constructor(readonly child: ChildProcessWithoutNullStreams, readonly url: string) {}

  static start(args: string[], home: string): Promise<HttpDsh> {
    const env = Object.fromEntries(Object.entries({ ...process.env, ...LOOPBACK_ONLY, DSH_HOME: home }).filter(([, value]) => value !== undefined)) as Record<string, string>
    const child = spawn(process.execPath, [CLI, 'mcp', '--http', '127.0.0.1:0', ...args], { cwd: ROOT, env })
    return new Promise((resolve, reject) => {
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
        if (match && !server) {
          server = new HttpDsh(child, match[1])
          resolve(server)
        }
        if (server) server.stderr = stderr
      })
      let server: HttpDsh | undefined
      child.once('exit', (code) => reject(new Error(`dsh mcp --http exited (${code}) before listening: ${stderr}`)))
    })
  }

  get port(): number {
    return Number(new URL(this.url).port)
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.kill('SIGTERM')
    await exited
  }
}

export async function connect(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {})
  const client = new Client({ name: 'dsh-http-test', version: '0.0.0' })
  await client.connect(transport)
  return client
}

/** `dsh mcp token create NAME` in the home: the token it prints. */
export async function createToken(home: string, name: string): Promise<string> {
  const created = await dsh(['mcp', 'token', 'create', name], { home })
  assert.equal(created.code, 0, created.stderr)
  return created.stdout.trim()
}
