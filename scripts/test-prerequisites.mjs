#!/usr/bin/env node
// The programs the test suite runs for real (a Redis, two proxies, a TLS
// front, a network namespace, certificates, a browser), found before any test starts.
// Missing ones are installed when this process can (root, with apt-get);
// otherwise it stops within a second with the one command that installs them.
// The README's test command and .ci/run both start here, so what CI installs
// and what a new machine is told to install are the same list.
import { spawnSync } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Each program the tests start by name, the Debian package that has it, and which tests need it. */
export const PREREQUISITES = [
  { command: 'unshare', pkg: 'util-linux', why: 'the blocked-destination tests run inside a fresh network namespace (unshare -rn)' },
  { command: 'ip', pkg: 'iproute2', why: 'the same tests bring up loopback inside that namespace' },
  { command: 'tinyproxy', pkg: 'tinyproxy', why: 'the proxy-route tests run a real tinyproxy on 127.0.0.1' },
  { command: 'stunnel', pkg: 'stunnel4', why: 'stunnel in front of tinyproxy stands for an https:// proxy' },
  { command: 'squid', pkg: 'squid', why: 'the host-name tests run a real Squid, which reads names differently from tinyproxy' },
  { command: 'openssl', pkg: 'openssl', why: 'the TLS tests make their certificates with openssl' },
  { command: 'redis-server', pkg: 'redis-server', why: 'the shared-state and token tests run a real Redis' },
  { command: 'chromium', pkg: 'chromium', why: 'the rendering provider (dsh-web-fetch-browser) is tested against the real Chromium, its leak cases included' },
]

/** Debian puts daemons in sbin, which a user's PATH often leaves out; the tests start them by name, so they must be on PATH. */
export const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin', '/usr/local/bin', '/usr/bin', '/bin']

function findIn(dirs, command) {
  for (const dir of dirs) {
    if (!dir) continue
    try {
      accessSync(join(dir, command), constants.X_OK)
      return join(dir, command)
    } catch {}
  }
  return undefined
}

/**
 * What to do, from where programs are: `ok`; `path` (installed, but in a
 * folder PATH leaves out); `install` (root with apt-get: these packages);
 * `tell` (print the command that installs them). Never runs anything.
 */
export function plan({ pathDirs, systemDirs = SYSTEM_DIRS, root }) {
  const absent = PREREQUISITES.filter((entry) => !findIn(pathDirs, entry.command))
  if (absent.length === 0) return { kind: 'ok', absent, packages: [], message: '' }
  const lines = ['The tests need programs this machine does not have on PATH:']
  for (const entry of absent) lines.push(`  ${entry.command} (Debian package ${entry.pkg}): ${entry.why}`)
  const elsewhere = absent.map((entry) => findIn(systemDirs, entry.command)).filter(Boolean)
  const notInstalled = absent.filter((entry) => !findIn(systemDirs, entry.command))
  const packages = [...new Set(notInstalled.map((entry) => entry.pkg))]
  if (elsewhere.length > 0) {
    const dirs = [...new Set(elsewhere.map((path) => dirname(path)))]
    lines.push(`Installed but not on PATH: ${elsewhere.join(', ')}. Add ${dirs.join(' and ')} to PATH, e.g.`, `  PATH="$PATH:${dirs.join(':')}" npx -y pnpm@12.4.2 test`)
  }
  if (packages.length === 0) return { kind: 'path', absent, packages, message: lines.join('\n') }
  const install = `apt-get install -y ${packages.join(' ')}`
  if (root && findIn(pathDirs, 'apt-get') && elsewhere.length === 0) {
    lines.push(`Installing them (root, apt-get): ${install}`)
    return { kind: 'install', absent, packages, message: lines.join('\n') }
  }
  lines.push('Install them, then run the tests again:', `  sudo apt-get update && sudo ${install}`)
  return { kind: 'tell', absent, packages, message: lines.join('\n') }
}

function main() {
  const pathDirs = (process.env.PATH ?? '').split(delimiter)
  const first = plan({ pathDirs, root: process.getuid?.() === 0 })
  if (first.kind === 'ok') return 0
  console.error(first.message)
  if (first.kind !== 'install') return 1
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...first.packages]]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (run.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal}); fix that, or install by hand: apt-get install -y ${first.packages.join(' ')}`)
      return 1
    }
  }
  const after = plan({ pathDirs, root: false })
  if (after.kind === 'ok') return 0
  console.error(`After the install:\n${after.message}`)
  return 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main()
