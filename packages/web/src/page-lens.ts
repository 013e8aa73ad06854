import { WebError } from './errors.js'
import type { FetchRequest, FetchedDocument } from './types.js'

/** Characters a `find` phrase may have at most. */
export const FIND_MAX_CHARS = 200
/** Characters a `query` may have at most. */
export const QUERY_MAX_CHARS = 300

/** What a fetch asks of its snapshot besides a part of the text: a phrase to find, or words to rank passages by. */
export type PageLens = { find: string; query?: undefined } | { query: string; find?: undefined }

/**
 * Checks `find` and `query` before anything is fetched: strings of bounded
 * length with something in them, not both, and no `offset` with `query`
 * (passages come from the whole page; `offset` with `find` is where the
 * search starts). Undefined when the request has neither.
 */
export function readPageLens(request: Pick<FetchRequest, 'find' | 'query' | 'offset'>): PageLens | undefined {
  const find = readString(request.find, 'find', FIND_MAX_CHARS, 'a phrase as the page would have it, e.g. "connection timeout"')
  const query = readString(request.query, 'query', QUERY_MAX_CHARS, 'a few words of what you look for, e.g. "default connection timeout"')
  if (find !== undefined && query !== undefined) {
    throw new WebError('INVALID_ARGUMENT', 'find and query cannot be used together: find lists where a phrase occurs, query ranks the passages that share words with it. Pass one of them.', {
      details: { argument: 'query' },
    })
  }
  if (query !== undefined) {
    if (typeof request.offset === 'number' && request.offset > 0) {
      throw new WebError('INVALID_ARGUMENT', `query ranks passages of the whole page, so it takes no offset (got ${request.offset}); leave offset out, and read on from a passage's offset without query.`, {
        details: { argument: 'offset' },
      })
    }
    if (!/[\p{L}\p{N}]/u.test(query)) {
      throw new WebError('INVALID_ARGUMENT', `query ${JSON.stringify(query)} has no words (letters or digits) to match; give a few words of what you look for, or use find for a literal phrase.`, {
        details: { argument: 'query' },
      })
    }
    return { query }
  }
  return find === undefined ? undefined : { find }
}

function readString(value: unknown, argument: 'find' | 'query', limit: number, example: string): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !value.trim()) {
    throw new WebError('INVALID_ARGUMENT', `${argument} must be a non-empty string: ${example}; got ${JSON.stringify(value)}.`, { details: { argument } })
  }
  if (value.length > limit) {
    throw new WebError('INVALID_ARGUMENT', `${argument} has ${value.length} characters, more than the ${limit} allowed; shorten it to ${example.startsWith('a phrase') ? 'the words that set the place apart' : 'its key words'}.`, {
      details: { argument, limit },
    })
  }
  return value
}

/**
 * A provider's answer to a fetch with `find` or `query` must hold that
 * result: one that ignored it would hand back a part of the page as if it
 * were the answer.
 */
export function checkLensAnswered(lens: PageLens | undefined, document: FetchedDocument, providerId: string): FetchedDocument {
  const key = lens?.find !== undefined ? 'find' : lens?.query !== undefined ? 'query' : undefined
  if (key && document[key] === undefined) {
    throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `The fetch provider "${providerId}" does not implement ${key}: its answer has no ${key} result. Fetch without ${key} and read the page by offset, or use a fetch provider that implements it (http, browser).`, {
      details: { providerId, argument: key },
    })
  }
  return document
}
