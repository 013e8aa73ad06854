import { readFileSync, readdirSync } from 'node:fs'

/** Resident memory (bytes, from /proc/<pid>/status VmRSS) of a process tree, split into one process group and the rest. */
export interface TreeRss {
  /** The root process itself. */
  root: number
  /** Its descendants in `group` (for the benchmark: the browser's process group). */
  group: number
  /** Its other descendants (for the benchmark: the static fetcher's document children). */
  others: number
}

interface ProcessEntry {
  ppid: number
  pgrp: number
  rssBytes: number
}

function readEntry(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: ppid and pgrp (fields 4 and 5) follow its last ')'.
    const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    // A zombie has no VmRSS line: it holds no memory.
    return { ppid: Number(ppid), pgrp: Number(pgrp), rssBytes: rss ? Number(rss[1]) * 1024 : 0 }
  } catch {
    // Exited between readdir and read.
    return undefined
  }
}

/**
 * One reading of /proc: the VmRSS of `root` and of every descendant, those
 * in process group `group` apart (Chromium is started in a group of its own,
 * led by the browser process, which the provider kills as a whole). Shared
 * pages count once per process, so the sums are upper bounds, as the
 * browser provider's own memory cap reads them.
 */
export function readTreeRss(root: number, group?: number): TreeRss {
  const entries = new Map<number, ProcessEntry>()
  const children = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid)) continue
    const entry = readEntry(pid)
    if (!entry) continue
    entries.set(pid, entry)
    const siblings = children.get(entry.ppid)
    if (siblings) siblings.push(pid)
    else children.set(entry.ppid, [pid])
  }
  const result: TreeRss = { root: entries.get(root)?.rssBytes ?? 0, group: 0, others: 0 }
  const stack = [...(children.get(root) ?? [])]
  while (stack.length) {
    const pid = stack.pop()!
    const entry = entries.get(pid)!
    if (group !== undefined && entry.pgrp === group) result.group += entry.rssBytes
    else result.others += entry.rssBytes
    stack.push(...(children.get(pid) ?? []))
  }
  return result
}
