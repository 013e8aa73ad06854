import type { JsonValue } from 'dsh-host'

/**
 * Walks values without recursion: an input nested 100,000 levels deep is
 * inspected (and refused) on the heap, never by overflowing the call stack.
 */

export interface JsonLimits {
  /** Containers (objects, arrays) nested more deeply than this are refused. */
  maxDepth?: number
  /** JSON text (UTF-8) longer than this is refused. */
  maxBytes?: number
  /** Stop counting bytes past this many (a guard against shared references that would serialise without end). */
  countUpTo?: number
}

export interface JsonInspection {
  /** The first rule the value breaks, with its path; undefined when it is plain JSON within the limits. */
  problem?: string
  /** `json`: not JSON data (the walk stopped there); `depth` or `bytes`: a limit. */
  rule?: 'json' | 'depth' | 'bytes'
  /** UTF-8 bytes of `JSON.stringify(value)`, counted by the walk. */
  bytes: number
  /** False when the walk stopped before the end (a `json` problem, or `countUpTo` reached): `bytes` is then a lower bound. */
  complete: boolean
  /** The deepest container level seen (0 for a string, number, boolean or null). */
  depth: number
  /** Of a top-level object or array: its largest member and that member's bytes (keys and commas not counted). */
  largest?: { path: string; bytes: number }
}

type Key = string | number

interface Frame {
  value: unknown
  key: Key | undefined
  parent: Frame | undefined
  depth: number
}

/** Leaves the walk as a marker on the stack: the container is no longer an ancestor. */
class Leave {
  constructor(readonly container: object, readonly frame: Frame) {}
}

/**
 * Checks that a value is plain JSON data (what survives a round trip through
 * JSON.stringify unchanged) within optional depth and size limits, measures
 * its JSON size, and names the path of the first problem.
 */
export function inspectJson(value: unknown, root = '$', limits: JsonLimits = {}): JsonInspection {
  const maxDepth = limits.maxDepth ?? Infinity
  const maxBytes = limits.maxBytes ?? Infinity
  const countUpTo = limits.countUpTo ?? Infinity
  const result: JsonInspection = { bytes: 0, complete: true, depth: 0 }
  const ancestors = new Set<object>()
  const stack: Array<Frame | Leave> = [{ value, key: undefined, parent: undefined, depth: 0 }]
  let memberStart = 0
  let member: Frame | undefined

  const stop = (rule: 'json', frame: Frame, text: string): JsonInspection => {
    result.problem = `${formatPath(root, frame)} ${text}`
    result.rule = rule
    result.complete = false
    return result
  }

  while (stack.length) {
    const item = stack.pop()!
    if (item instanceof Leave) {
      ancestors.delete(item.container)
      if (item.frame.depth === 1) noteMember(item.frame)
      continue
    }
    const frame = item
    if (frame.depth === 1) {
      memberStart = result.bytes
      member = frame
    }
    const current = frame.value
    switch (typeof current) {
      case 'string':
        result.bytes += stringBytes(current)
        break
      case 'boolean':
        result.bytes += current ? 4 : 5
        break
      case 'number':
        if (!Number.isFinite(current)) return stop('json', frame, `is ${current}, which JSON cannot hold`)
        result.bytes += String(current).length
        break
      case 'object': {
        if (current === null) {
          result.bytes += 4
          break
        }
        if (ancestors.has(current)) return stop('json', frame, 'is a circular reference')
        const depth = frame.depth + 1
        if (depth > result.depth) result.depth = depth
        if (depth > maxDepth && !result.problem) {
          result.problem = `${formatPath(root, frame)} is nested ${depth} levels deep, deeper than the limit of ${maxDepth}`
          result.rule = 'depth'
        }
        ancestors.add(current)
        stack.push(new Leave(current, frame))
        if (Array.isArray(current)) {
          for (let index = 0; index < current.length; index++) {
            if (!(index in current)) return stop('json', { value: undefined, key: index, parent: frame, depth: frame.depth + 1 }, 'is a hole in a sparse array')
          }
          result.bytes += 2 + Math.max(0, current.length - 1)
          for (let index = current.length - 1; index >= 0; index--) {
            stack.push({ value: current[index], key: index, parent: frame, depth: frame.depth + 1 })
          }
          break
        }
        const prototype = Object.getPrototypeOf(current)
        if (prototype !== Object.prototype && prototype !== null) {
          return stop('json', frame, `is a ${prototype?.constructor?.name ?? 'non-plain'} object, not plain JSON data`)
        }
        const keys = Object.keys(current)
        result.bytes += 2 + Math.max(0, keys.length - 1)
        for (let index = keys.length - 1; index >= 0; index--) {
          const key = keys[index]
          result.bytes += stringBytes(key) + 1
          stack.push({ value: (current as Record<string, unknown>)[key], key, parent: frame, depth: frame.depth + 1 })
        }
        break
      }
      default:
        return stop('json', frame, `is ${typeof current}, which JSON cannot hold`)
    }
    if (frame.depth === 1 && !isContainer(current)) noteMember(frame)
    if (result.bytes > countUpTo) {
      result.complete = false
      break
    }
  }
  if (result.bytes > maxBytes && !result.problem) {
    result.problem = `${root} is ${result.complete ? '' : 'at least '}${formatBytes(result.bytes)} as JSON, more than the limit of ${formatBytes(maxBytes)}` +
      (result.largest ? `; the largest part is ${result.largest.path}, ${formatBytes(result.largest.bytes)}` : '')
    result.rule = 'bytes'
  }
  return result

  function noteMember(frame: Frame) {
    if (frame !== member) return
    const bytes = result.bytes - memberStart
    if (!result.largest || bytes > result.largest.bytes) result.largest = { path: formatPath(root, frame), bytes }
  }
}

/** The first path at which a value is not plain JSON data, in words; undefined when it is. */
export function findNonJson(value: unknown, path = '$'): string | undefined {
  const { problem, rule } = inspectJson(value, path)
  return rule === 'json' ? problem : undefined
}

export function isJsonValue(value: unknown): value is JsonValue {
  return findNonJson(value) === undefined
}

interface PreviewFrame {
  container: object
  /** An object's keys; undefined for an array, which is read by index. */
  keys: string[] | undefined
  length: number
  index: number
}

/**
 * The beginning of a value's JSON text, at most `maxChars` characters, built
 * without serialising the whole (and without recursion). Anything JSON cannot
 * hold is shown as a bracketed string such as "[circular]".
 */
export function previewJson(value: unknown, maxChars: number): string {
  let text = ''
  const stack: PreviewFrame[] = []
  const ancestors = new Set<object>()
  const open = (item: unknown) => {
    if (typeof item === 'object' && item !== null && !ancestors.has(item)) {
      const array = Array.isArray(item)
      const plain = array || [Object.prototype, null].includes(Object.getPrototypeOf(item))
      if (plain) {
        ancestors.add(item)
        const keys = array ? undefined : Object.keys(item)
        stack.push({ container: item, keys, length: keys?.length ?? (item as unknown[]).length, index: 0 })
        text += array ? '[' : '{'
        return
      }
    }
    text += leafText(item, maxChars - text.length)
  }
  open(value)
  while (stack.length && text.length < maxChars) {
    const frame = stack[stack.length - 1]
    if (frame.index >= frame.length) {
      text += frame.keys ? '}' : ']'
      ancestors.delete(frame.container)
      stack.pop()
      continue
    }
    const key = frame.keys ? frame.keys[frame.index] : frame.index
    if (frame.index++ > 0) text += ','
    if (frame.keys) text += leafText(key, maxChars - text.length) + ':'
    open((frame.container as Record<Key, unknown>)[key])
  }
  return text.length > maxChars ? text.slice(0, maxChars) : text
}

function leafText(item: unknown, room: number): string {
  switch (typeof item) {
    case 'string':
      // Escape only the part that can be shown: a 5 MB string is not copied whole.
      return JSON.stringify(item.length > room ? item.slice(0, Math.max(0, room)) : item)
    case 'boolean':
      return String(item)
    case 'number':
      return Number.isFinite(item) ? String(item) : `"[${item}]"`
    case 'bigint':
      return `"[bigint ${item}]"`
    case 'object':
      if (item === null) return 'null'
      return Object.getPrototypeOf(item) === Object.prototype || Array.isArray(item) || Object.getPrototypeOf(item) === null
        ? '"[circular]"'
        : `"[${Object.getPrototypeOf(item)?.constructor?.name ?? 'non-plain'} object]"`
    default:
      return `"[${typeof item}]"`
  }
}

/** Bytes, also in KiB or MiB when large: `5,242,893 bytes (5.0 MiB)`. */
export function formatBytes(bytes: number): string {
  const exact = `${bytes.toLocaleString('en-US')} bytes`
  if (bytes >= 1024 * 1024) return `${exact} (${(bytes / 1024 / 1024).toFixed(1)} MiB)`
  if (bytes >= 1024) return `${exact} (${(bytes / 1024).toFixed(1)} KiB)`
  return exact
}

const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/

/** UTF-8 bytes of JSON.stringify(text), without copying text that needs no escapes. */
function stringBytes(text: string): number {
  if (PLAIN.test(text)) return text.length + 2
  if (!ESCAPED.test(text)) return Buffer.byteLength(text, 'utf8') + 2
  return Buffer.byteLength(JSON.stringify(text), 'utf8')
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/
const SHOWN_LEVELS = 12

/** `input.items[3].name`; a deep path keeps its first and last levels and says how many are left out. */
function formatPath(root: string, frame: Frame): string {
  const keys: Key[] = []
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) keys.push(at.key!)
  keys.reverse()
  const part = (key: Key) => {
    if (typeof key === 'number') return `[${key}]`
    if (IDENTIFIER.test(key) && key.length <= 40) return `.${key}`
    return `[${JSON.stringify(key.length > 40 ? key.slice(0, 40) + '…' : key)}]`
  }
  if (keys.length <= SHOWN_LEVELS) return root + keys.map(part).join('')
  const head = keys.slice(0, SHOWN_LEVELS / 2).map(part).join('')
  const tail = keys.slice(-SHOWN_LEVELS / 2).map(part).join('')
  return `${root}${head}…(${keys.length - SHOWN_LEVELS} more levels)…${tail}`
}
