import type { JsonValue } from 'dsh-host'

/**
 * Plain JSON data from a value built of records, arrays and primitives: keys
 * holding `undefined` disappear, as they would on the wire. Structured tool
 * output must be JSON only (the tools service refuses anything else).
 */
export function toJsonData(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue
}
