import { randomBytes } from 'node:crypto'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { type Lease, type LeaseHolder, leaseHolder, takeLease, withFileLock } from '../file-lock.js'
import { SessionError } from './session-errors.js'

/**
 * Sessions a live process holds are never pruned: a process that opens a
 * session keeps a lease on it (`<session>/.lease-<pid>-<random>`, see
 * `takeLease`), renews it every third of its ttl while it runs and removes
 * it when its session service stops. `dsh session prune` looks at the
 * leases under the session log's lock, the same lock a lease is taken
 * under, so prune either sees a new lease or has removed the session before
 * it was taken (and the opener is told the session is gone).
 */

export const LEASE_FILE_PREFIX = '.lease-'

/** The leases of one session service, on every session it opened. */
export class SessionLeases {
  private readonly held = new Map<string, Lease>()
  private timer?: NodeJS.Timeout

  constructor(private readonly ttlMs: number, private readonly lockTimeoutMs: number) {}

  /** Leases the session in `dir` (once per service, however often it is opened). */
  async hold(id: string, dir: string, logPath: string): Promise<void> {
    if (this.held.has(dir)) return
    const path = join(dir, `${LEASE_FILE_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`)
    let lease: Lease
    try {
      lease = await withFileLock(logPath, async () => {
        await lstat(logPath)
        return takeLease(path, this.ttlMs)
      }, { timeoutMs: this.lockTimeoutMs, what: `The session log ${logPath}` })
    } catch (error: any) {
      if (error?.code !== 'ENOENT') throw error
      throw new SessionError('SESSION_NOT_FOUND', `Session "${id}" was removed (by dsh session prune, or by hand) while it was being opened; open or create it again.`, { cause: error })
    }
    this.held.set(dir, lease)
    this.timer ??= setInterval(() => void this.renewAll(), Math.max(1, Math.floor(this.ttlMs / 3))).unref()
  }

  private async renewAll(): Promise<void> {
    for (const [dir, lease] of this.held) {
      try {
        await lease.renew()
      } catch (error: any) {
        if (error?.code === 'ENOENT') this.held.delete(dir)
        // Said on stderr, not thrown: nothing waits on a renewal, and the session's next append fails with its own fix if the folder is gone.
        process.emitWarning(error?.code === 'ENOENT'
          ? `dsh: the lease on the session folder ${dir} is gone (the session was removed, by dsh session prune once the lease had run out, or by hand) while this process held it open; if the folder is gone, its next event fails.`
          : `dsh: the lease on the session folder ${dir} could not be renewed (${error?.code ?? error}); trying again in ${Math.floor(this.ttlMs / 3)} ms.`)
      }
    }
  }

  /** Removes every lease; the service is stopping. */
  releaseAll(): void {
    clearInterval(this.timer)
    this.timer = undefined
    for (const lease of this.held.values()) {
      try {
        lease.release()
      } catch {
        // A lease that cannot be removed runs out by itself, and its owner is gone once this process exits.
      }
    }
    this.held.clear()
  }
}

/** The live leases on the session in `dir`: the processes that hold it open now (empty when none). */
export async function sessionHolders(dir: string, now = Date.now()): Promise<LeaseHolder[]> {
  const holders: LeaseHolder[] = []
  for (const name of await readdir(dir)) {
    if (!name.startsWith(LEASE_FILE_PREFIX)) continue
    const holder = await leaseHolder(join(dir, name), now)
    if (holder) holders.push(holder)
  }
  return holders
}
