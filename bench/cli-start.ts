// How long each dsh command takes to start and finish, and its peak memory,
// as ratios to a bare `node -e 0` measured in the same run, rounds interleaved
// so that a busy machine slows every command alike (hyperfine's method, in Node).
//
//   npx -y pnpm@12.4.2 bench:cli-start [-- --runs 15]
//
// `dsh mcp` is timed to the answer of an MCP client's initialize on stdio.
//
// Every process gets the same preload (bench/support/report-rss.mjs), which
// reports its peak RSS at exit. Providers point at a closed loopback port and
// $DSH_HOME is a fresh folder: nothing leaves the machine.
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const CLI = join(ROOT, 'packages/cli/dist/dsh.js')
const PRELOAD = join(ROOT, 'bench/support/report-rss.mjs')
const runsFlag = process.argv.indexOf('--runs')
const RUNS = runsFlag === -1 ? 10 : Number(process.argv[runsFlag + 1])
const WARMUP = 2

const COMMANDS: Array<{ name: string; args: string[]; mcp?: boolean }> = [
  { name: 'node -e 0 (baseline)', args: ['-e', '0'] },
  { name: 'dsh --version', args: [CLI, '--version'] },
  { name: 'dsh tools --help', args: [CLI, 'tools', '--help'] },
  { name: 'dsh tools --json', args: [CLI, 'tools', '--json'] },
  { name: 'dsh tools --json --preset ptc', args: [CLI, 'tools', '--json', '--preset', 'ptc'] },
  { name: 'dsh compose --json', args: [CLI, 'compose', '--json'] },
  { name: 'dsh session list --json', args: [CLI, 'session', 'list', '--json'] },
  // Time until the stdio server answers an MCP client's initialize (what a client waits for), not until exit.
  { name: 'dsh mcp: initialize answered', args: [CLI, 'mcp', '--preset', 'standard'], mcp: true },
]

const INITIALIZE = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-cli-start', version: '0' } } })}\n`

/** Starts the MCP server on stdio, sends initialize, and times the answer; then closes stdin (the server exits) for its peak RSS. */
function runMcpOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ['--import', PRELOAD, ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe', 'pipe'] })
    let ms: number | undefined
    let stdout = ''
    let rss = ''
    let stderr = ''
    child.stdio[3]!.on('data', (chunk) => (rss += chunk))
    child.stderr!.on('data', (chunk) => (stderr += chunk))
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      if (ms === undefined && /"id":1\b/.test(stdout)) {
        ms = Number(process.hrtime.bigint() - started) / 1e6
        child.stdin!.end()
      }
    })
    child.on('error', reject)
    child.stdin!.write(INITIALIZE)
    child.on('close', (code) => {
      if (ms === undefined) return reject(new Error(`${args.join(' ')} exited ${code} before answering initialize: ${stderr}`))
      resolvePromise({ ms, rssKiB: Number(rss) })
    })
  })
}

interface Sample {
  ms: number
  rssKiB: number
}

function runOnce(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, ['--import', PRELOAD, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
    let rss = ''
    let stderr = ''
    child.stdio[3]!.on('data', (chunk) => (rss += chunk))
    child.stderr!.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`))
      resolvePromise({ ms, rssKiB: Number(rss) })
    })
  })
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

const home = await mkdtemp(join(tmpdir(), 'dsh-bench-home-'))
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DSH_HOME: home,
  DEEPSEEK_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
  BRAVE_API_KEY: undefined,
  DEEPSEEK_SEARCH_BASE_URL: 'http://127.0.0.1:9',
  OPENAI_SEARCH_BASE_URL: 'http://127.0.0.1:9',
  SEARXNG_BASE_URL: 'http://127.0.0.1:9',
  BRAVE_SEARCH_BASE_URL: 'http://127.0.0.1:9',
}
try {
  const samples = COMMANDS.map(() => [] as Sample[])
  for (let round = 0; round < WARMUP + RUNS; round++) {
    for (const [index, command] of COMMANDS.entries()) {
      const sample = await (command.mcp ? runMcpOnce : runOnce)(command.args, env)
      if (round >= WARMUP) samples[index].push(sample)
    }
  }
  const baseMs = median(samples[0].map((sample) => sample.ms))
  const baseRss = median(samples[0].map((sample) => sample.rssKiB))
  console.log(`dsh start time and peak RSS, median of ${RUNS} runs each (after ${WARMUP} warm-up rounds), Node ${process.version}`)
  console.log(`${'command'.padEnd(32)} ${'time'.padStart(9)} ${'x node'.padStart(7)} ${'peak RSS'.padStart(10)} ${'x node'.padStart(7)}`)
  for (const [index, command] of COMMANDS.entries()) {
    const ms = median(samples[index].map((sample) => sample.ms))
    const rss = median(samples[index].map((sample) => sample.rssKiB))
    console.log(`${command.name.padEnd(32)} ${`${ms.toFixed(0)} ms`.padStart(9)} ${(ms / baseMs).toFixed(2).padStart(7)} ${`${(rss / 1024).toFixed(1)} MB`.padStart(10)} ${(rss / baseRss).toFixed(2).padStart(7)}`)
  }
} finally {
  await rm(home, { recursive: true, force: true })
}
