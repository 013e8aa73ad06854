import { WebError } from './errors.js'
import type { FetchExtract, FetchFormat } from './types.js'

/** The forms a fetch returns its text in, and the file extension of each form's artifact. */
export const FORMATS: FetchFormat[] = ['markdown', 'text', 'html']
export const EXTENSIONS: Record<FetchFormat, string> = { markdown: 'md', text: 'txt', html: 'html' }
export const EXTRACTS: FetchExtract[] = ['main', 'full']

/** A fetch argument that must be one of `allowed`, or INVALID_ARGUMENT naming it and them. */
export function checkEnum<T extends string>(value: unknown, allowed: T[], name: string, fallback: T): T {
  if (value === undefined) return fallback
  if (typeof value === 'string' && (allowed as string[]).includes(value)) return value as T
  throw new WebError('INVALID_ARGUMENT', `${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value)}.`, { details: { argument: name } })
}

/** An option that must be a finite number, 0 or more, or INVALID_ARGUMENT naming it. */
export function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new WebError('INVALID_ARGUMENT', `${name} must be a number, 0 or more.`)
  return value
}
