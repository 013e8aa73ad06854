import { type FSWatcher, watch } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'

/** Every session's events under `home`, oldest first in each; a session being created may be empty. */
export async function sessionEvents(home: string): Promise<any[][]> {
  const ids = await readdir(join(home, 'sessions')).catch(() => [] as string[])
  return Promise.all(ids.map(async (id) => {
    const text = await readFile(join(home, 'sessions', id, 'events.jsonl'), 'utf8').catch(() => '')
    // A line being appended may be read half-written: only whole lines count.
    return text.split('\n').filter((line) => line.endsWith('}')).flatMap((line) => {
      try {
        return [JSON.parse(line)]
      } catch {
        return []
      }
    })
  }))
}

/**
 * The first session event under `home` that `match` accepts, waited for on
 * the file system's own change events (inotify through fs.watch on
 * `$DSH_HOME`, its `sessions` folder and each session's folder), never by
 * polling or a give-up time: a test waits as long as the server takes, and
 * only the test runner's timeout ends a wait for what never happens.
 */
export function untilSessionEvent(home: string, match: (event: any) => boolean): Promise<any> {
  const watchers = new Map<string, FSWatcher>()
  let checking = false
  let again = false
  return new Promise((resolve, reject) => {
    const stop = () => {
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    }
    const follow = (dir: string) => {
      if (watchers.has(dir)) return
      try {
        watchers.set(dir, watch(dir, () => void check()))
      } catch {
        // Not there yet: the folder above reports when it is made.
      }
    }
    const check = async (): Promise<void> => {
      if (checking) return void (again = true)
      checking = true
      try {
        do {
          again = false
          follow(home)
          follow(join(home, 'sessions'))
          for (const id of await readdir(join(home, 'sessions')).catch(() => [] as string[])) follow(join(home, 'sessions', id))
          const found = (await sessionEvents(home)).flat().find(match)
          if (found) {
            stop()
            return resolve(found)
          }
        } while (again)
      } catch (error) {
        stop()
        reject(error)
      } finally {
        checking = false
      }
    }
    void check()
  })
}
