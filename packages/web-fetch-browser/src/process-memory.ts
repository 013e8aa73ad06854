import { readdirSync, readFileSync } from 'node:fs'

/** Parent process id and resident set (bytes) of one /proc entry; undefined when it is gone. */
function readStat(pid: number): { ppid: number; rssBytes: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: the fields after it start past its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const statm = readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')
    return { ppid: Number(fields[1]), rssBytes: Number(statm[1]) * PAGE_BYTES }
  } catch {
    return undefined
  }
}

/** Linux's page size on every platform Debian's chromium ships for (statm counts pages). */
const PAGE_BYTES = 4096

/**
 * Resident memory of a process and all its descendants (the browser, its
 * zygotes, renderers, GPU and utility processes), summed from /proc. Shared
 * pages count once per process, so this is an upper bound of what the tree
 * holds: a cap on it never lets the tree hold more. 0 when /proc has no such
 * process (it exited).
 */
export function treeResidentBytes(root: number): number {
  const children = new Map<number, number[]>()
  const rss = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const stat = readStat(pid)
    if (!stat) continue
    rss.set(pid, stat.rssBytes)
    const siblings = children.get(stat.ppid)
    if (siblings) siblings.push(pid)
    else children.set(stat.ppid, [pid])
  }
  let total = 0
  const stack = [root]
  const seen = new Set<number>()
  while (stack.length) {
    const pid = stack.pop()!
    if (seen.has(pid)) continue
    seen.add(pid)
    total += rss.get(pid) ?? 0
    stack.push(...(children.get(pid) ?? []))
  }
  return total
}
