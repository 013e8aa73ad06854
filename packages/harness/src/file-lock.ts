import { randomBytes } from 'node:crypto'
import { readFileSync, readlinkSync, unlinkSync } from 'node:fs'
import { lstat, lutimes, readlink, symlink, unlink } from 'node:fs/promises'
import { hostname } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { CodedError, type CodedErrorOptions } from 'dsh-host'

/**
 * One writer at a time across processes, for the session logs and the
 * credential store: the one implementation of the locking policy.
 *
 * The lock is `<file>.lock`, a symbolic link created with `symlink(2)`,
 * which, like `O_CREAT | O_EXCL`, fails when the name exists, so exactly one
 * process gets it; its target is the owner's token
 * (`dsh-lock:<host>:<pid>:<process start>:<nonce>`), written in the same
 * system call, so there is never a lock without an owner, and it takes no
 * data block, so it is still taken on a full disk. A lock whose owner is on
 * this host and no longer runs (its pid is gone, or now belongs to a process
 * started at another time) is stale: it is removed under a second lock
 * (`<file>.lock.break`) after checking it is still the same lock, and taken.
 * A live owner is waited for, up to `timeoutMs`, then the caller gets
 * `FILE_LOCK_TIMEOUT` naming the owner's pid.
 */

export class FileLockError extends CodedError<'FILE_LOCK_TIMEOUT'> {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super('FILE_LOCK_TIMEOUT', message, { retryable: true, ...options })
    this.name = 'FileLockError'
  }
}

export interface FileLockOptions {
  /** How long to wait for another live owner (default 10 s). */
  timeoutMs?: number
  /** What the lock guards, for the error message ("the session log /x/events.jsonl"). */
  what?: string
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000

const PREFIX = 'dsh-lock'

interface Holder {
  raw: string
  host: string
  pid: number
  start: string
}

/** The start time of a process (clock ticks since boot, from /proc), or '-' where there is no /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch (error: any) {
    if (error?.code === 'ENOENT' && process.platform === 'linux') return undefined
    return '-'
  }
}

const ownHost = hostname().replace(/[^A-Za-z0-9.-]/g, '_').slice(0, 64) || 'host'
const ownStart = processStart(process.pid) ?? '-'

function parseHolder(raw: string): Holder | undefined {
  const parts = raw.split(':')
  if (parts.length !== 5 || parts[0] !== PREFIX || !/^\d+$/.test(parts[2])) return undefined
  return { raw, host: parts[1], pid: Number(parts[2]), start: parts[3] }
}

/** Whether the owner is certainly gone; an owner on another host, or that cannot be judged, counts as alive. */
function isGone(holder: Holder): boolean {
  if (holder.host !== ownHost) return false
  try {
    process.kill(holder.pid, 0)
  } catch (error: any) {
    if (error?.code === 'ESRCH') return true
    if (error?.code !== 'EPERM') return false
  }
  if (holder.start === '-') return false
  const start = processStart(holder.pid)
  return start === undefined || (start !== '-' && start !== holder.start)
}

async function readHolder(lockPath: string): Promise<Holder | 'missing' | 'unknown'> {
  try {
    return parseHolder(await readlink(lockPath)) ?? 'unknown'
  } catch (error: any) {
    if (error?.code === 'ENOENT') return 'missing'
    if (error?.code === 'EINVAL') return 'unknown'
    throw error
  }
}

async function tryCreate(lockPath: string, token: string): Promise<boolean> {
  try {
    await symlink(token, lockPath)
    return true
  } catch (error: any) {
    if (error?.code === 'EEXIST') return false
    throw error
  }
}

async function unlinkIfStill(path: string, raw: string): Promise<void> {
  try {
    if ((await readlink(path)) === raw) await unlink(path)
  } catch (error: any) {
    if (error?.code !== 'ENOENT') throw error
  }
}

/** Removes a stale lock, unless another process took it over meanwhile. */
async function breakStale(lockPath: string, stale: Holder, token: string): Promise<void> {
  const breaker = `${lockPath}.break`
  if (!(await tryCreate(breaker, token))) {
    const other = await readHolder(breaker)
    // A breaker killed while breaking leaves its own stale lock: remove it, then try again.
    if (typeof other === 'object' && isGone(other)) await unlinkIfStill(breaker, other.raw)
    return
  }
  try {
    await unlinkIfStill(lockPath, stale.raw)
  } finally {
    await unlinkIfStill(breaker, token)
  }
}

function describeHolder(holder: Holder | 'unknown'): string {
  if (holder === 'unknown') return 'an owner dsh cannot identify'
  return holder.host === ownHost ? `process ${holder.pid}` : `process ${holder.pid} on host ${holder.host}`
}

/** Runs `task` while holding the lock `<path>.lock`; the lock is released however the task ends. */
export async function withFileLock<T>(path: string, task: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lockPath = `${path}.lock`
  const token = [PREFIX, ownHost, process.pid, ownStart, randomBytes(6).toString('hex')].join(':')
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
  const deadline = Date.now() + timeoutMs
  let pause = 1
  while (!(await tryCreate(lockPath, token))) {
    const holder = await readHolder(lockPath)
    if (holder === 'missing') continue
    if (holder !== 'unknown' && isGone(holder)) {
      await breakStale(lockPath, holder, token)
      continue
    }
    if (Date.now() >= deadline) {
      const owner = describeHolder(holder)
      throw new FileLockError(
        `${options.what ?? path} is locked by ${owner}, which did not release it within ${timeoutMs} ms. If that process is stuck, end it; a lock whose process has ended is taken over by itself. If no dsh process uses it, remove ${lockPath}.`,
        { details: { path: lockPath, ...(holder === 'unknown' ? {} : { holderPid: holder.pid, holderHost: holder.host }) } },
      )
    }
    await sleep(pause + Math.random() * pause)
    pause = Math.min(pause * 2, 20)
  }
  try {
    return await task()
  } finally {
    await unlinkIfStill(lockPath, token)
  }
}

/**
 * A lease: a claim a live process renews, for what must outlast one locked
 * step (a session a server holds open while idle). Same owner token and
 * liveness test as the lock, so there is one policy for "is its owner
 * still there": the lease is a symbolic link (created in one system call,
 * no data block, so it is taken and renewed on a full disk too) whose
 * target is `dsh-lease:<host>:<pid>:<process start>:<ttl ms>:<nonce>`, and
 * its own modification time is its last renewal (`lutimes`). It holds while
 * it was renewed within its ttl and its owner runs: a `kill -9`ed owner on
 * this host holds nothing from that moment, one on another host (or one
 * that is stopped) until its ttl runs out.
 */
export interface Lease {
  readonly path: string
  /** Sets the lease's time to now; rejects (ENOENT) once the lease is gone. */
  renew(): Promise<void>
  /** Removes the lease (idempotent; synchronous, so it is done even when the process exits right after). */
  release(): void
}

export interface LeaseHolder {
  pid: number
  host: string
  /** Whether the holder runs on this host (its pid is checked, not just its ttl). */
  local: boolean
  /** When the lease runs out unless renewed. */
  expires: Date
}

const LEASE_PREFIX = 'dsh-lease'
/** The ttl a lease is judged by when its target cannot be read: what dsh itself uses by default. */
export const DEFAULT_LEASE_MS = 60_000
/** The longest ttl a lease may claim: a planted or damaged lease cannot keep its session for longer. */
export const MAX_LEASE_MS = 24 * 60 * 60 * 1000

/** Takes a new lease at `path` (a name of its own: several processes can lease one thing, each at its own path). */
export async function takeLease(path: string, ttlMs: number): Promise<Lease> {
  const token = [LEASE_PREFIX, ownHost, process.pid, ownStart, Math.round(ttlMs), randomBytes(6).toString('hex')].join(':')
  await symlink(token, path)
  return {
    path,
    renew: async () => {
      const now = new Date()
      await lutimes(path, now, now)
    },
    release: () => {
      try {
        if (readlinkSync(path) === token) unlinkSync(path)
      } catch (error: any) {
        if (error?.code !== 'ENOENT') throw error
      }
    },
  }
}

/** Who holds the lease at `path`, or undefined when it is missing, ran out, or its owner has ended. */
export async function leaseHolder(path: string, now = Date.now()): Promise<LeaseHolder | undefined> {
  let raw: string
  let renewed: number
  try {
    renewed = (await lstat(path)).mtimeMs
    raw = await readlink(path)
  } catch (error: any) {
    if (error?.code === 'ENOENT' || error?.code === 'EINVAL') return undefined
    throw error
  }
  const parts = raw.split(':')
  const valid = parts.length === 6 && parts[0] === LEASE_PREFIX && /^\d+$/.test(parts[2]) && /^\d+$/.test(parts[4])
  const ttl = valid ? Math.min(Number(parts[4]), MAX_LEASE_MS) : DEFAULT_LEASE_MS
  const expires = renewed + ttl
  if (expires <= now) return undefined
  if (!valid) return { pid: 0, host: 'unknown', local: false, expires: new Date(expires) }
  const holder: Holder = { raw, host: parts[1], pid: Number(parts[2]), start: parts[3] }
  return isGone(holder) ? undefined : { pid: holder.pid, host: holder.host, local: holder.host === ownHost, expires: new Date(expires) }
}
