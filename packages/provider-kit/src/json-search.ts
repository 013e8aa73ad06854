/**
 * The search flow of every vendor whose search is one JSON POST to its
 * endpoint (Tavily, Perplexity, Exa, OpenAI's Responses, Gemini's
 * generateContent, the Messages family): the body sent as JSON with the
 * vendor's headers, each attempt logged with the body as sent, the kit's
 * transport (bounded retries, size cap, no redirects, key scrubbing) and the
 * 2xx body read by the vendor's tolerant parser. What stays the vendor's:
 * the request it builds, its headers, its error mapping and its parser.
 */

import type { JsonValue } from 'dsh-host'
import { redactUrl, type ProviderCall, type WebError } from 'dsh-web'
import { appendRequestEvent, type ModelApiCall, type ReadSuccessBodyOptions } from './model-api-client.js'
import type { HttpAnswer } from './transport.js'

export interface JsonSearchRequest<T> extends Omit<ReadSuccessBodyOptions<T>, 'providerId' | 'providerName'> {
  /** The wire request's body, sent as JSON to the call's endpoint and logged as sent. */
  body: object
  /** The vendor's headers besides content-type and accept; the key goes here and nowhere else. */
  headers: Record<string, string>
  /** The log-only event of each HTTP attempt, e.g. web/tavily-search-request. */
  requestEvent: string
  /** Identifiers the vendor adds to that event, between the endpoint and the attempt (e.g. apiVersion). */
  eventData?: { [key: string]: JsonValue }
  /** The vendor's error mapping of a non-2xx answer (and of an error envelope under a 2xx). */
  toError(answer: HttpAnswer): WebError
}

/** One search POSTed as JSON on a started call; resolves to the vendor's parsed response. */
export async function postJsonSearch<T>(started: ModelApiCall, call: ProviderCall, search: JsonSearchRequest<T>): Promise<T> {
  const { providerId } = started.errorContext
  const body = JSON.stringify(search.body)
  const answer = await started.request({
    headers: { 'content-type': 'application/json', accept: 'application/json', ...search.headers },
    body,
    beforeDispatch: (attempt) =>
      appendRequestEvent(call, search.requestEvent, () => ({
        providerId,
        endpoint: redactUrl(started.endpoint),
        ...search.eventData,
        attempt: attempt + 1,
        body: JSON.parse(body) as JsonValue,
      })),
    toError: search.toError,
  })
  return started.readSuccessBody(answer, { expected: search.expected, parse: search.parse, errorMessage: search.errorMessage, toError: search.toError })
}
