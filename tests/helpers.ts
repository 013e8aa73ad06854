import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..')
export const CLI = join(ROOT, 'packages/cli/dist/dsh.js')

/**
 * No child may reach a real provider, whatever the developer's environment
 * holds: keys are dropped and provider bases point at a closed loopback port
 * unless a test sets them to its own fixture. Nor does a child inherit the
 * machine's proxy (many corporate machines set one, and .ci/run sets one at
 * a closed port): a test of the proxy route passes its own variables.
 */
export const LOOPBACK_ONLY: Record<string, string | undefined> = {
  HTTP_PROXY: undefined,
  HTTPS_PROXY: undefined,
  http_proxy: undefined,
  https_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
  ALL_PROXY: undefined,
  all_proxy: undefined,
  DEEPSEEK_API_KEY: undefined,
  OPENAI_API_KEY: undefined,
  DEEPSEEK_SEARCH_BASE_URL: 'http://127.0.0.1:9',
  OPENAI_SEARCH_BASE_URL: 'http://127.0.0.1:9',
  SEARXNG_BASE_URL: 'http://127.0.0.1:9',
  BRAVE_API_KEY: undefined,
  BRAVE_SEARCH_BASE_URL: 'http://127.0.0.1:9',
  // dsh doctor makes the selected provider's free check with a key it finds: none may come from the developer's environment.
  ANTHROPIC_API_KEY: undefined,
  GEMINI_API_KEY: undefined,
  TAVILY_API_KEY: undefined,
  EXA_API_KEY: undefined,
  PERPLEXITY_API_KEY: undefined,
}

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/** A child's exit code and everything it printed, once it has closed. */
export function collectOutput(child: ChildProcess): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout?.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr?.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }))
  })
}

/** Runs the real `dsh` CLI in a child process, from the repo root, with its own $DSH_HOME. */
export function dsh(args: string[], options: { home: string; input?: string; env?: Record<string, string | undefined> }): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...LOOPBACK_ONLY, DSH_HOME: options.home, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    child.stdin.end(options.input ?? '')
    collectOutput(child).then(resolvePromise, reject)
  })
}

/** Parses stdout as exactly one JSON document. */
export function onlyJson(result: RunResult): any {
  if (result.code !== 0) throw new Error(`dsh exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

export function tempHome(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'dsh-home-'))
}

export { execFile }
