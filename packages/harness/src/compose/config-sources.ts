/**
 * Where each value of a row's resolved config came from, and what a layer that
 * replaces a row's config whole changes without saying so.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Schema } from 'cordis'
import type { MergedRow } from './merge-rows.js'
import { objectFields } from 'dsh-host'
import { isSecret, redactSecrets } from './plugin-config.js'

/** The source of a value no composition file set. */
export const PLUGIN_DEFAULT = 'plugin default'
/** The source of a value an operator flag of the command set (`dsh fetch --private-host`). */
export const COMMAND_LINE = 'command line'

/**
 * For each top-level key of the resolved config: the file that set it,
 * `command line`, or `plugin default`.
 */
export function configSources(row: MergedRow, resolved: unknown, patchedKeys: ReadonlySet<string>): Record<string, string> {
  const keys = new Set([...Object.keys(isRecord(resolved) ? resolved : {}), ...Object.keys(row.config)])
  return Object.fromEntries(
    [...keys].map((key) => [key, patchedKeys.has(key) ? COMMAND_LINE : key in row.config ? row.configFrom : PLUGIN_DEFAULT]),
  )
}

/**
 * One warning per layer whose replacement of the row's config changes a value
 * that layer does not mention: the earlier layer's value gives way to the
 * plugin's default. Keys a later layer or the command line sets again are
 * left out, since the earlier value is not what they lose. Secrets are shown
 * as `<redacted>`.
 */
export function replacementWarnings(row: MergedRow, schema: Schema, patchedKeys: ReadonlySet<string>): string[] {
  const warnings: string[] = []
  row.replacements.forEach((replacement, index) => {
    // Another package's config means other keys: only the final package's schema can compare them.
    if (replacement.previousName !== row.name || replacement.name !== row.name) return
    const before = resolve(schema, replacement.previous)
    const after = resolve(schema, replacement.config)
    if (!before || !after) return
    const restated = new Set([...patchedKeys, ...row.replacements.slice(index + 1).flatMap((later) => Object.keys(later.config))])
    const changes: string[] = []
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (key in replacement.config || restated.has(key) || isDeepStrictEqual(before[key], after[key])) continue
      const from = key in replacement.previous ? `from ${replacement.previousFrom}` : PLUGIN_DEFAULT
      const to = after[key] === undefined ? 'no plugin default' : PLUGIN_DEFAULT
      changes.push(`${key} ${showValue(schema, key, before[key])} (${from}) -> ${showValue(schema, key, after[key])} (${to})`)
    }
    if (!changes.length) return
    warnings.push(
      `${replacement.file} replaces the config of row "${row.id}" whole; keys it does not mention change: ${changes.join(', ')}. ` +
        `Restate them in ${replacement.file} to keep them.`,
    )
  })
  return warnings
}

function resolve(schema: Schema, config: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    const resolved: unknown = schema(config)
    return isRecord(resolved) ? resolved : undefined
  } catch {
    // A config the schema refuses was never in force; nothing to compare.
    return undefined
  }
}

function showValue(schema: Schema, key: string, value: unknown): string {
  if (value === undefined) return 'unset'
  const field = objectFields(schema)?.[key]
  if (isSecret(field)) return value === '' ? '""' : '<redacted>'
  return JSON.stringify(redactSecrets(field, value))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
