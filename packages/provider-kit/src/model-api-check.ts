/**
 * `dsh doctor`'s check of a model-API provider (dsh-web's `SearchProvider.check`):
 * the cheapest authenticated request its API documents as free, through the
 * same client as a search (base URL, per-call credential, deadline, proxy
 * route, bounded retries, size cap, no redirects, key scrubbing), so that a
 * bad key or base URL ends with the WebError a search would end with.
 */

import type { ProviderCall, WebError } from 'dsh-web'
import type { ModelApiCall, ModelApiClient } from './model-api-client.js'
import type { HttpAnswer, ProviderErrorContext } from './transport.js'

/** The free request of one vendor, built for a started call (its endpoint and key). */
export interface ModelApiCheck<T> {
  /** The free endpoint, derived from the search endpoint of the call. */
  url: URL
  /** The vendor's headers, the key among them. */
  headers: Record<string, string>
  /** The vendor's error mapping, with the context naming the check's URL. */
  toError(answer: HttpAnswer, context: ProviderErrorContext): WebError
  /** What the answer should have been, e.g. "a Models API model". */
  expected: string
  parse(text: string): { ok: true; response: T } | { ok: false; reason: string }
  /** The message of the vendor's error envelope, when the body is one. */
  errorMessage(text: string): unknown
  /** What the answer proves, in words for doctor's line; may throw the WebError a search would end with (e.g. no balance). */
  proves(response: T, context: ProviderErrorContext): string
}

/** Runs a vendor's free check: one GET, its 2xx body read by the vendor's parser. Resolves to what it proved. */
export async function runModelApiCheck<T>(client: ModelApiClient, call: ProviderCall, build: (started: ModelApiCall) => ModelApiCheck<T>): Promise<string> {
  const started = await client.startCheck(call)
  const check = build(started)
  const context: ProviderErrorContext = { ...started.errorContext, endpoint: check.url }
  const toError = (answer: HttpAnswer) => check.toError(answer, context)
  const answer = await started.request({ method: 'GET', url: check.url, headers: { accept: 'application/json', ...check.headers }, beforeDispatch: async () => {}, toError })
  const response = started.readSuccessBody(answer, { expected: check.expected, parse: check.parse, errorMessage: check.errorMessage, toError })
  return `${check.proves(response, context)} (GET ${check.url.pathname})`
}

/** Reads a JSON object body whose `field` is a non-empty string (e.g. a model's `id`) or, with `kind`, an array or an object. */
export function parseObjectWith(field: string, text: string, kind: 'string' | 'array' | 'object' = 'string'): { ok: true; response: Record<string, unknown> } | { ok: false; reason: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'the body is not JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'the body is not a JSON object' }
  const record = value as Record<string, unknown>
  const item = record[field]
  const present = kind === 'array' ? Array.isArray(item) : kind === 'object' ? typeof item === 'object' && item !== null && !Array.isArray(item) : typeof item === 'string' && item !== ''
  if (!present) return { ok: false, reason: `the body has no "${field}" ${kind}` }
  return { ok: true, response: record }
}
