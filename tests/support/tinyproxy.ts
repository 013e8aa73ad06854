// A real tinyproxy on 127.0.0.1 for the proxy-route tests, started per test
// file with a generated config and its log read back. .ci/run installs it;
// `tinyproxyMissing` says why a test is skipped where it is not installed.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { type AddressInfo, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const tinyproxyMissing = spawnSync('tinyproxy', ['-v']).error ? 'tinyproxy is not installed (apt-get install -y tinyproxy; .ci/run does it)' : false
export const squidMissing = spawnSync('squid', ['-v']).error ? 'squid is not installed (apt-get install -y squid)' : false
export const stunnelMissing = spawnSync('stunnel', ['-version']).error ? 'stunnel is not installed (apt-get install -y stunnel4; .ci/run does it)' : false

export interface Tinyproxy {
  port: number
  origin: string
  /** The log so far. */
  log(): string
  /** The `Request` lines of the log (e.g. "CONNECT localhost:8443 HTTP/1.1"). */
  requests(): string[]
  stop(): Promise<void>
}

/** A port that was free a moment ago (tinyproxy takes no Port 0). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

interface Daemon {
  port: number
  stop(): Promise<void>
}

/**
 * Starts a server process on a port that was free a moment ago (neither
 * tinyproxy nor stunnel takes port 0), with the config `configFor(port)`
 * written into `folder`, and waits until the port accepts; tries another
 * port when the process exits first (the port was taken in between).
 * `stop` ends it and removes the folder.
 */
async function startDaemon(folder: string, what: string, configFor: (port: number) => string, argsFor: (configFile: string) => string[], why: () => string): Promise<Daemon> {
  const configFile = join(folder, `${what}.conf`)
  for (let attempt = 0; ; attempt++) {
    const port = await freePort()
    writeFileSync(configFile, `${configFor(port)}\n`)
    const child: ChildProcess = spawn(what, argsFor(configFile), { stdio: 'ignore' })
    let exited = false
    child.once('exit', () => (exited = true))
    while (!exited && !(await accepts(port))) await new Promise((resolve) => setTimeout(resolve, 20))
    if (exited) {
      if (attempt < 3) continue
      throw new Error(`${what} did not start: ${why()}`)
    }
    return {
      port,
      async stop() {
        if (!exited) {
          const ended = new Promise((resolve) => child.once('exit', resolve))
          child.kill('SIGTERM')
          await ended
        }
        rmSync(folder, { recursive: true, force: true })
      },
    }
  }
}

/** `connectPorts`: the only ports CONNECT may reach (Squid's default allows 443 alone); every port when absent. */
export async function startTinyproxy(options: { basicAuth?: [string, string]; connectPorts?: number[] } = {}): Promise<Tinyproxy> {
  const folder = mkdtempSync(join(tmpdir(), 'dsh-tinyproxy-'))
  const logFile = join(folder, 'tinyproxy.log')
  const config = (port: number) => [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Allow 127.0.0.1',
    `LogFile "${logFile}"`,
    'LogLevel Info',
    'Timeout 30',
    'MaxClients 50',
    ...(options.basicAuth ? [`BasicAuth ${options.basicAuth[0]} ${options.basicAuth[1]}`] : []),
    ...(options.connectPorts ?? []).map((connectPort) => `ConnectPort ${connectPort}`),
  ].join('\n')
  const daemon = await startDaemon(folder, 'tinyproxy', config, (file) => ['-d', '-c', file], () => readLog(logFile))
  return {
    port: daemon.port,
    origin: `http://127.0.0.1:${daemon.port}`,
    log: () => readLog(logFile),
    requests: () => [...readLog(logFile).matchAll(/Request \(file descriptor \d+\): (.*)$/gm)].map((match) => match[1]!),
    stop: daemon.stop,
  }
}

export interface Squid {
  port: number
  origin: string
  /** The access log's entries so far, e.g. "CONNECT localhost:8443 HIER_DIRECT/127.0.0.1". */
  requests(): string[]
  stop(): Promise<void>
}

/**
 * A real Squid on 127.0.0.1 (no cache, every client allowed, CONNECT to any
 * port): a proxy that normalises host names its own way (it reads
 * `localhost..` as `localhost`), to check that what we vet is what it reads.
 */
export async function startSquid(): Promise<Squid> {
  const folder = mkdtempSync(join(tmpdir(), 'dsh-squid-'))
  // Squid drops to its own user, which writes the logs here.
  chmodSync(folder, 0o777)
  const accessLog = join(folder, 'access.log')
  const config = (port: number) => [
    `http_port 127.0.0.1:${port}`,
    'http_access allow all',
    'cache deny all',
    `pid_filename ${join(folder, 'squid.pid')}`,
    `access_log stdio:${accessLog}`,
    `cache_log ${join(folder, 'cache.log')}`,
    `coredump_dir ${folder}`,
    'shutdown_lifetime 0 seconds',
    'pinger_enable off',
  ].join('\n')
  const daemon = await startDaemon(folder, 'squid', config, (file) => ['-N', '-f', file], () => readLog(join(folder, 'cache.log')))
  return {
    port: daemon.port,
    origin: `http://127.0.0.1:${daemon.port}`,
    requests: () => [...readLog(accessLog).matchAll(/^\S+\s+\d+ \S+ \S+ \d+ (\S+ \S+) \S+ (\S+)/gm)].map((match) => `${match[1]} ${match[2]}`)
        // The start-up probe's connection, closed before a request line, is logged as "- error:…".
        .filter((entry) => !entry.startsWith('- ')),
    stop: daemon.stop,
  }
}

export interface TlsFront {
  port: number
  /** `https://localhost:PORT`: the name the certificate is for. */
  origin: string
  stop(): Promise<void>
}

/**
 * A real stunnel on 127.0.0.1 that takes TLS (the given certificate, for
 * `localhost`) and passes the plain stream on to `targetPort`: in front of
 * tinyproxy it makes an HTTPS proxy, one the client speaks TLS to.
 */
export async function startTlsFront(targetPort: number, tls: { cert: string; key: string }): Promise<TlsFront> {
  const folder = mkdtempSync(join(tmpdir(), 'dsh-stunnel-'))
  const config = (port: number) => ['foreground = yes', 'pid =', 'debug = 3', '[front]', `accept = 127.0.0.1:${port}`, `connect = 127.0.0.1:${targetPort}`, `cert = ${tls.cert}`, `key = ${tls.key}`].join('\n')
  const daemon = await startDaemon(folder, 'stunnel', config, (file) => [file], () => 'it exited at once')
  return { port: daemon.port, origin: `https://localhost:${daemon.port}`, stop: daemon.stop }
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}
