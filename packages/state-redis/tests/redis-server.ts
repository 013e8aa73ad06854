import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A free TCP port on 127.0.0.1 (redis-server takes --port 0 as "no TCP", so the port is picked here). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A real redis-server (Debian's package) on 127.0.0.1, with no persistence,
 * in a temporary folder; `password` turns on AUTH. `stop()` ends it,
 * `kill()` ends it at once (SIGKILL), `start()` runs it again on the same port.
 */
export class RedisServer {
  private child?: ChildProcess
  private constructor(readonly port: number, private readonly dir: string, readonly password?: string, private readonly debugCommand = false) {}

  /** `debugCommand` allows DEBUG (e.g. DEBUG SLEEP, to make the server slow), off by default since Redis 7. */
  static async start(options: { password?: string; debugCommand?: boolean } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), await mkdtemp(join(tmpdir(), 'dsh-redis-')), options.password, options.debugCommand)
    await server.start()
    return server
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--protected-mode', 'yes']
    if (this.password) args.push('--requirepass', this.password)
    if (this.debugCommand) args.push('--enable-debug-command', 'local')
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
    this.child = child
    await new Promise<void>((resolve, reject) => {
      let output = ''
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk
        if (output.includes('Ready to accept connections')) resolve()
      })
      child.once('error', (error) => reject(new Error(`redis-server did not start (is it installed? apt-get install -y redis-server): ${error.message}`)))
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output}`)))
    })
  }

  /** Ends the server at once, as a crash or a lost machine would. */
  async kill(): Promise<void> {
    await this.end('SIGKILL')
  }

  async stop(): Promise<void> {
    await this.end('SIGTERM')
  }

  async close(): Promise<void> {
    await this.stop()
    await rm(this.dir, { recursive: true, force: true })
  }

  private async end(signal: NodeJS.Signals): Promise<void> {
    const child = this.child
    this.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill(signal)
    await exited
  }
}
