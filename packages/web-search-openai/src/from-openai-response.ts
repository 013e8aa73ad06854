import { cleanUntrustedLine } from 'dsh-host'
import { WebError } from 'dsh-web'
import type { Citation, SearchAnswer, SearchSource, SearchUsage } from 'dsh-web'
import { isObject } from 'dsh-provider-kit'
import {
  type OpenAIOutputMessage,
  type OpenAIOutputText,
  type OpenAIResponse,
  type OpenAISearchAction,
  type OpenAIUrlCitation,
  type OpenAIWebSearchCall,
} from './openai-responses-api.js'

export interface OpenAIMappedResult {
  queries: string[]
  sources: SearchSource[]
  answer?: SearchAnswer
  usage?: SearchUsage
  warnings: string[]
}

/**
 * Wire to neutral. Sources are the `action.sources` of the search calls and the
 * `url_citation` annotations of the answer, in the order they appear, unique by
 * the URL exactly as returned, all of them. The answer is every `output_text`
 * part joined (the wire has no top-level `output_text`).
 */
export function fromOpenAIResponse(response: OpenAIResponse, providerId: string): OpenAIMappedResult {
  const status = typeof response.status === 'string' ? response.status : 'completed'
  if (status === 'failed') {
    const message = typeof response.error?.message === 'string' && response.error.message ? response.error.message : 'no message given'
    const code = typeof response.error?.code === 'string' && response.error.code ? response.error.code : undefined
    throw new WebError('WEB_PROVIDER_ERROR', `OpenAI reports the response failed: ${message}`, {
      details: { providerId, ...(code ? { providerCode: code } : {}) },
    })
  }
  if (status === 'cancelled' || status === 'queued' || status === 'in_progress') {
    throw new WebError('WEB_PROVIDER_BAD_RESPONSE', `OpenAI answered a response with status ${status}; a finished response was expected.`, {
      details: { providerId, providerCode: status },
    })
  }

  const queries: string[] = []
  const sources: SearchSource[] = []
  const byUrl = new Map<string, SearchSource>()
  const addSource = (url: string): SearchSource => {
    let source = byUrl.get(url)
    if (!source) {
      source = { url }
      byUrl.set(url, source)
      sources.push(source)
    }
    return source
  }
  let calls = 0
  let searches = 0
  let failedCalls = 0
  let text = ''
  const citations: Citation[] = []
  const refusals: string[] = []

  for (const item of response.output) {
    switch (item.type) {
      case 'web_search_call': {
        const call = item as OpenAIWebSearchCall
        calls++
        if (call.status === 'failed') failedCalls++
        const action = isObject(call.action) ? call.action : undefined
        switch (action?.type) {
          case 'search': {
            searches++
            const search = action as OpenAISearchAction
            if (Array.isArray(search.queries)) {
              for (const query of search.queries) if (typeof query === 'string' && query) queries.push(query)
            } else if (typeof search.query === 'string' && search.query) {
              queries.push(search.query)
            }
            if (Array.isArray(search.sources)) {
              for (const entry of search.sources) {
                // Non-URL sources (type api with a name) have nothing to link to.
                if (isObject(entry) && typeof entry.url === 'string' && entry.url) addSource(entry.url)
              }
            }
            break
          }
          default:
            // open_page, find_in_page and future actions: pages the model looked at, not search results.
            break
        }
        break
      }
      case 'message': {
        const message = item as OpenAIOutputMessage
        if (!Array.isArray(message.content)) break
        for (const part of message.content) {
          if (!isObject(part)) continue
          switch (part.type) {
            case 'output_text': {
              const output = part as unknown as OpenAIOutputText
              if (typeof output.text !== 'string') break
              const offset = text.length
              text += output.text
              for (const citation of urlCitations(output.annotations)) {
                const source = addSource(citation.url)
                if (citation.title && !source.title) source.title = citation.title
                const entry: Citation = { url: citation.url }
                if (citation.title) entry.title = citation.title
                const span = citedSpan(output.text, citation)
                if (span !== undefined) {
                  entry.start = offset + citation.start_index!
                  entry.end = offset + citation.end_index!
                  if (isQuotable(span, citation.url)) {
                    entry.citedText = span
                    if (!source.snippet) source.snippet = span
                  }
                }
                citations.push(entry)
              }
              break
            }
            case 'refusal':
              if (typeof part.refusal === 'string') refusals.push(part.refusal)
              break
            default:
              // Unknown content parts are not ours to read.
              break
          }
        }
        break
      }
      default:
        // reasoning and item types not invented yet: skipped on purpose.
        break
    }
  }

  if (calls === 0) {
    throw new WebError('WEB_SEARCH_FAILED', `OpenAI answered without a web_search_call: the model did not search (status ${status}). No sources are taken from the model's prose.`, {
      details: { providerId, providerCode: 'no_search_performed' },
    })
  }
  const incompleteReason = typeof response.incomplete_details?.reason === 'string' ? response.incomplete_details.reason : undefined
  if (!sources.length && failedCalls === calls) {
    throw new WebError('WEB_SEARCH_FAILED', `OpenAI's web search failed (${failedCalls === 1 ? 'the search call' : `all ${failedCalls} search calls`} reported status failed) and returned no sources.`, {
      details: { providerId, providerCode: 'web_search_call_failed' },
      retryable: true,
    })
  }
  if (!sources.length && status === 'incomplete') {
    throw new WebError('WEB_SEARCH_FAILED', `OpenAI's response is incomplete${incompleteReason ? ` (${incompleteReason})` : ''} and holds no sources.`, {
      details: { providerId, providerCode: incompleteReason ?? 'incomplete' },
    })
  }

  const warnings: string[] = []
  if (status === 'incomplete') {
    warnings.push(`OpenAI's response is incomplete${incompleteReason ? ` (${incompleteReason})` : ''}; the results are partial.`)
  }
  if (failedCalls) warnings.push(`${failedCalls} of ${calls} web search calls failed; the sources are those of the rest.`)
  if (!sources.length) warnings.push('The web search returned no sources.')
  if (refusals.length) warnings.push(`The model refused part of the answer: ${cleanUntrustedLine(refusals.join(' '), { maxLength: 300 })}`)

  const mapped: OpenAIMappedResult = { queries, sources, warnings }
  if (text.trim()) mapped.answer = { text, citations, modelWritten: true }
  const usage: SearchUsage = {}
  if (searches) usage.searchRequests = searches
  if (isObject(response.usage)) {
    if (typeof response.usage.input_tokens === 'number') usage.inputTokens = response.usage.input_tokens
    if (typeof response.usage.output_tokens === 'number') usage.outputTokens = response.usage.output_tokens
  }
  if (Object.keys(usage).length) mapped.usage = usage
  return mapped
}

function urlCitations(annotations: OpenAIOutputText['annotations']): OpenAIUrlCitation[] {
  if (!Array.isArray(annotations)) return []
  return annotations.filter(
    (annotation): annotation is OpenAIUrlCitation =>
      isObject(annotation) && annotation.type === 'url_citation' && typeof annotation.url === 'string' && annotation.url !== '',
  )
}

/** The annotated span of the part's text, when the indices are sane. */
function citedSpan(text: string, citation: OpenAIUrlCitation): string | undefined {
  const { start_index: start, end_index: end } = citation
  if (!Number.isInteger(start) || !Number.isInteger(end)) return undefined
  if (start! < 0 || end! > text.length || start! >= end!) return undefined
  return text.slice(start, end)
}

/**
 * A span worth quoting: in practice many spans are only the inline link
 * `([host](url))`, which says nothing the URL does not.
 */
function isQuotable(span: string, url: string): boolean {
  const bare = span.replace(/\[[^\]]*\]\([^)]*\)/g, '').replaceAll(url, '').replace(/[\s()[\]]/g, '')
  return bare.length > 0
}
