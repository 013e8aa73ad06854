import { type SearchRecency, type SearchRequest, type UserLocation, WebError } from 'dsh-web'
import { DomainList, DomainListError, type ToolInputSchema } from 'dsh-host'

/** The arguments of `web_search` as the model gives them. */
export interface WebSearchInput {
  queries: string[]
  allowed_domains?: string[]
  blocked_domains?: string[]
  user_location?: { city?: string; region?: string; country?: string; timezone?: string }
  recency?: SearchRecency
}

/** The values of `recency`, shortest first. */
export const SEARCH_RECENCIES: readonly SearchRecency[] = ['day', 'week', 'month', 'year']

const DOMAIN_LIST = (what: string) => ({
  type: 'array',
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 253 },
  description: `${what} Domain names such as "example.com" (subdomains are included), optionally with a path prefix ("example.com/blog"). Not together with the other domain list.`,
})

/** The closed input schema; the tools service validates it before the handler runs. */
export function webSearchInputSchema(maxQueries: number): ToolInputSchema {
  return {
    type: 'object',
    properties: {
      queries: {
        type: 'array',
        minItems: 1,
        maxItems: maxQueries,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, maxLength: 1000 },
        description: `1 to ${maxQueries} search queries, each a non-blank string. They run at the same time; results are merged and de-duplicated.`,
      },
      allowed_domains: DOMAIN_LIST('Only return results from these sites.'),
      blocked_domains: DOMAIN_LIST('Never return results from these sites.'),
      user_location: {
        type: 'object',
        properties: {
          city: { type: 'string', minLength: 1, maxLength: 100 },
          region: { type: 'string', minLength: 1, maxLength: 100 },
          country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'Two-letter ISO country code, e.g. "DE".' },
          timezone: { type: 'string', minLength: 1, maxLength: 100, description: 'IANA time zone, e.g. "Europe/Berlin".' },
        },
        additionalProperties: false,
        description: 'Approximate location to localise results.',
      },
      recency: {
        type: 'string',
        enum: [...SEARCH_RECENCIES],
        description: 'Keep to sources published or updated within the last day, week, month or year (for news, releases, anything recent). The reply says whether the provider honoured it.',
      },
    },
    required: ['queries'],
    additionalProperties: false,
  }
}

/**
 * What the schema cannot say: blank queries, both domain lists at once,
 * domain entries that are URLs. Returns the request every query shares.
 */
export function readSearchInput(input: WebSearchInput): { queries: string[]; request: Omit<SearchRequest, 'query'> } {
  const queries = input.queries.map((query) => query.trim())
  const blank = queries.findIndex((query) => !query)
  if (blank !== -1) {
    throw new WebError('INVALID_ARGUMENT', `queries[${blank}] is blank; every query must contain some text.`, { details: { argument: 'queries' } })
  }
  if (new Set(queries).size !== queries.length) {
    throw new WebError('INVALID_ARGUMENT', 'queries holds the same query twice; give each query once.', { details: { argument: 'queries' } })
  }
  if (input.allowed_domains && input.blocked_domains) {
    throw new WebError(
      'INVALID_ARGUMENT',
      'Give allowed_domains or blocked_domains, not both: restrict the search to some sites, or exclude some sites.',
      { details: { argument: 'blocked_domains' } },
    )
  }
  const request: Omit<SearchRequest, 'query'> = {}
  if (input.allowed_domains) request.allowedDomains = readDomains(input.allowed_domains, 'allowed_domains')
  if (input.blocked_domains) request.blockedDomains = readDomains(input.blocked_domains, 'blocked_domains')
  if (input.user_location) {
    const location: UserLocation = { type: 'approximate' }
    const { city, region, country, timezone } = input.user_location
    if (city?.trim()) location.city = city.trim()
    if (region?.trim()) location.region = region.trim()
    if (country) location.country = country.toUpperCase()
    if (timezone?.trim()) location.timezone = timezone.trim()
    if (Object.keys(location).length === 1) {
      throw new WebError('INVALID_ARGUMENT', 'user_location is empty; give at least one of city, region, country, timezone, or leave it out.', {
        details: { argument: 'user_location' },
      })
    }
    request.userLocation = location
  }
  if (input.recency) request.recency = input.recency
  return { queries, request }
}

/**
 * A search filter list, read by the one domain matcher (so an entry means
 * here what it means everywhere) and narrowed to what search providers take:
 * a domain name with an optional path prefix. Entries go on normalised
 * (lower case, punycode, no trailing dot).
 */
function readDomains(domains: string[], argument: string): string[] {
  let list: DomainList
  try {
    list = DomainList.parse(domains, argument)
  } catch (error) {
    if (DomainListError.is(error)) throw new WebError('INVALID_ARGUMENT', error.message, { cause: error, details: { argument } })
    throw error
  }
  list.entries.forEach((entry, index) => {
    if (entry.kind !== 'name' || entry.subdomainsOnly || entry.port !== undefined) {
      throw new WebError(
        'INVALID_ARGUMENT',
        `${argument}[${index}] ${JSON.stringify(entry.written)} is not a domain name; a search filter takes names like "example.com" (subdomains included), optionally with a path ("example.com/blog"), without wildcard, address or port.`,
        { details: { argument } },
      )
    }
  })
  return list.entries.map((entry) => entry.text)
}
