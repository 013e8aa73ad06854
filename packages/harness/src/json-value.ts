import type { JsonValue } from 'dsh-host'

/**
 * Checks that a value is plain JSON data (what survives a round trip through
 * JSON.stringify unchanged) and names the first path that is not.
 */
export function findNonJson(value: unknown, path = '$', seen = new Set<object>()): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot hold`
    case 'object': {
      if (value === null) return undefined
      if (seen.has(value)) return `${path} is a circular reference`
      seen.add(value)
      try {
        if (Array.isArray(value)) {
          for (let index = 0; index < value.length; index++) {
            if (!(index in value)) return `${path}[${index}] is a hole in a sparse array`
            const problem = findNonJson(value[index], `${path}[${index}]`, seen)
            if (problem) return problem
          }
          return undefined
        }
        const prototype = Object.getPrototypeOf(value)
        if (prototype !== Object.prototype && prototype !== null) {
          return `${path} is a ${prototype?.constructor?.name ?? 'non-plain'} object, not plain JSON data`
        }
        for (const [key, item] of Object.entries(value)) {
          const problem = findNonJson(item, `${path}.${key}`, seen)
          if (problem) return problem
        }
        return undefined
      } finally {
        seen.delete(value)
      }
    }
    default:
      return `${path} is ${typeof value}, which JSON cannot hold`
  }
}

export function isJsonValue(value: unknown): value is JsonValue {
  return findNonJson(value) === undefined
}
