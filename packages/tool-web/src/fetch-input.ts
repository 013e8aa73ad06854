import { FIND_MAX_CHARS, type FetchExtract, type FetchFormat, type FetchRequest, QUERY_MAX_CHARS } from 'dsh-web'
import type { ToolInputSchema } from 'dsh-host'

/** The arguments of `web_fetch` as the model gives them. */
export interface WebFetchInput {
  url: string
  format?: FetchFormat
  max_chars?: number
  offset?: number
  extract?: FetchExtract
  find?: string
  query?: string
  pages?: string
}

/** The closed input schema: no headers, no method, no body, nothing the model could forge a request with. */
export function webFetchInputSchema(fetchMaxChars: number): ToolInputSchema {
  return {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192, description: 'The http(s) URL to fetch, exactly as given (for example from a web_search result).' },
      format: { type: 'string', enum: ['markdown', 'text', 'html'], description: 'markdown (default), plain text, or the raw HTML.' },
      max_chars: {
        type: 'integer',
        minimum: 1,
        description: `Characters of text to return in this call; default and at most ${fetchMaxChars} (larger values are capped).`,
      },
      offset: {
        type: 'integer',
        minimum: 0,
        description: 'Character offset to start from, to read on from where the previous call stopped, or from a match or passage that find or query gave (default 0). With find: where the search starts.',
      },
      extract: { type: 'string', enum: ['main', 'full'], description: 'main (default): the main content without navigation and boilerplate; full: the whole page.' },
      find: {
        type: 'string',
        minLength: 1,
        maxLength: FIND_MAX_CHARS,
        description: 'A literal phrase to look for instead of reading the text, e.g. "connection timeout": every place it occurs (case, spacing and markdown inline markup ignored, accents kept), in page order, with a few words around it, its offset and the headings it sits under. Not with query.',
      },
      query: {
        type: 'string',
        minLength: 1,
        maxLength: QUERY_MAX_CHARS,
        description: 'A few words of what you look for instead of reading the text, e.g. "default timeout value": the passages that share the most words with them (ranked by word overlap, not understanding), within max_chars, each with its offset, and the page\'s outline. Not with find or offset.',
      },
      pages: {
        type: 'string',
        minLength: 1,
        maxLength: 15,
        description: 'Of a PDF, the pages to read, counted from 1: "5" or "3-5". The text, find and query then stay within them; offsets stay those of the whole document. A document without pages (an HTML page) is read whole, and the reply says so.',
      },
    },
    required: ['url'],
    additionalProperties: false,
  }
}

/** The request for the provider. `allowedDomains` comes from policy, never from the model. */
export function readFetchInput(
  input: WebFetchInput,
  fetchMaxChars: number,
  allowedDomains: string[] | undefined,
): { request: FetchRequest & { maxChars: number }; cappedFrom?: number } {
  const maxChars = Math.min(input.max_chars ?? fetchMaxChars, fetchMaxChars)
  const request: FetchRequest & { maxChars: number } = {
    url: input.url,
    format: input.format ?? 'markdown',
    maxChars,
    offset: input.offset ?? 0,
    extract: input.extract ?? 'main',
  }
  if (input.find !== undefined) request.find = input.find
  if (input.query !== undefined) request.query = input.query
  if (input.pages !== undefined) request.pages = input.pages
  if (allowedDomains) request.allowedDomains = allowedDomains
  return input.max_chars !== undefined && input.max_chars > fetchMaxChars ? { request, cappedFrom: input.max_chars } : { request }
}

/** Says that `max_chars` was above the largest allowed value and what the call did instead. */
export function capNote(asked: number, maxChars: number): string {
  return `max_chars ${asked} is above the largest allowed value, ${maxChars}; this call returned at most ${maxChars} characters.`
}
