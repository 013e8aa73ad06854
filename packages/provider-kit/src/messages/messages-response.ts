import { WebError } from 'dsh-web'
import type { Citation, SearchAnswer, SearchSource, SearchUsage } from 'dsh-web'
import { isObject } from '../wire.js'
import {
  type MessagesCitation,
  type MessagesResponse,
  type MessagesServerToolUseBlock,
  type MessagesTextBlock,
  type MessagesWebSearchResult,
  type MessagesWebSearchResultLocation,
  type MessagesWebSearchToolResultBlock,
} from './messages-api.js'

export interface MessagesMappedResult {
  queries: string[]
  sources: SearchSource[]
  answer?: SearchAnswer
  usage?: SearchUsage
  warnings: string[]
}

/** Tool error codes that a later search may not hit again. */
const TRANSIENT_TOOL_ERRORS = new Set(['too_many_requests', 'unavailable'])

/**
 * Wire to neutral. Sources come only from `web_search_tool_result` blocks, in
 * the provider's order, first occurrence per URL, all of them. The answer is
 * the text written from the first search result on (narration before any
 * search is not an answer); citations point at character ranges of it.
 */
/** `providerName` names the vendor in messages, e.g. Anthropic. */
export function fromMessagesResponse(response: MessagesResponse, providerId: string, providerName: string): MessagesMappedResult {
  const queries: string[] = []
  const results: MessagesWebSearchResult[] = []
  const toolErrors: string[] = []
  const answerBlocks: MessagesTextBlock[] = []
  const citedText = new Map<string, string>()
  let resultBlocks = 0
  let searchErrorAfterResults = false

  for (const block of response.content) {
    switch (block.type) {
      case 'server_tool_use': {
        const use = block as MessagesServerToolUseBlock
        if (use.name === 'web_search' && isObject(use.input) && typeof use.input.query === 'string') queries.push(use.input.query)
        break
      }
      case 'web_search_tool_result': {
        const content = (block as MessagesWebSearchToolResultBlock).content
        resultBlocks++
        if (Array.isArray(content)) {
          for (const item of content) {
            if (isObject(item) && typeof item.url === 'string' && item.url) results.push(item)
          }
        } else {
          const code = isObject(content) && typeof content.error_code === 'string' ? content.error_code : 'unknown_error'
          toolErrors.push(code)
          if (results.length) searchErrorAfterResults = true
        }
        break
      }
      case 'text': {
        const text = block as MessagesTextBlock
        if (typeof text.text !== 'string') break
        for (const citation of webCitations(text.citations)) {
          if (typeof citation.cited_text === 'string' && !citedText.has(citation.url)) citedText.set(citation.url, citation.cited_text)
        }
        if (resultBlocks > 0) answerBlocks.push(text)
        break
      }
      default:
        // thinking, redacted_thinking, tool_use and types not invented yet: not ours to read.
        break
    }
  }

  const stopReason = typeof response.stop_reason === 'string' ? response.stop_reason : undefined
  if (resultBlocks === 0) {
    const searched = queries.length ? ` It started a search (${queries.map((query) => JSON.stringify(query)).join(', ')}) but no result came back` : ''
    throw new WebError(
      'WEB_SEARCH_FAILED',
      `${providerName} answered without any web search result: the model did not search.${searched}` +
        `${stopReason ? ` (stop_reason ${stopReason})` : ''}. No sources are taken from the model's prose.`,
      { details: { providerId, providerCode: 'no_search_performed' } },
    )
  }

  const sources: SearchSource[] = []
  const seen = new Set<string>()
  for (const result of results) {
    if (seen.has(result.url)) continue
    seen.add(result.url)
    const source: SearchSource = { url: result.url }
    if (typeof result.title === 'string' && result.title) source.title = result.title
    const snippet = citedText.get(result.url)
    if (snippet) source.snippet = snippet
    if (typeof result.page_age === 'string' && result.page_age) source.publishedDate = result.page_age
    sources.push(source)
  }

  if (!sources.length && toolErrors.length) {
    const code = toolErrors[0]!
    throw new WebError('WEB_SEARCH_FAILED', `${providerName}'s web search tool failed with error_code ${code}${toolErrors.length > 1 ? ` (all ${toolErrors.length} searches failed: ${toolErrors.join(', ')})` : ''}.`, {
      details: { providerId, providerCode: code },
      retryable: TRANSIENT_TOOL_ERRORS.has(code),
    })
  }

  const warnings: string[] = []
  if (toolErrors.length) {
    warnings.push(
      `${toolErrors.length} of ${resultBlocks} web searches failed (${toolErrors.join(', ')})${searchErrorAfterResults ? ' after earlier ones returned results' : ''}; ` +
        'the sources are those of the searches that succeeded.',
    )
  }
  if (!sources.length) warnings.push('The web search returned no results.')
  switch (stopReason) {
    case 'pause_turn':
      warnings.push(`${providerName} paused the turn (stop_reason pause_turn) before it finished; the results are partial. One request per search: the turn is not continued.`)
      break
    case 'max_tokens':
      warnings.push('The answer was cut off at max_tokens (stop_reason max_tokens); the results may be partial.')
      break
    case 'model_context_window_exceeded':
      warnings.push('The model ran out of context (stop_reason model_context_window_exceeded); the results may be partial.')
      break
    case 'refusal':
      warnings.push('The model declined to answer (stop_reason refusal); only the search results are returned.')
      break
    default:
      break
  }

  const mapped: MessagesMappedResult = { queries, sources, warnings }
  const answer = toAnswer(answerBlocks)
  if (answer) mapped.answer = answer
  const usage = toUsage(response)
  if (usage) mapped.usage = usage
  return mapped
}

function webCitations(citations: MessagesCitation[] | null | undefined): MessagesWebSearchResultLocation[] {
  if (!Array.isArray(citations)) return []
  return citations.filter(
    (citation): citation is MessagesWebSearchResultLocation =>
      isObject(citation) && citation.type === 'web_search_result_location' && typeof citation.url === 'string' && citation.url !== '',
  )
}

/** Text blocks are fragments of one answer: joined as they are, citations kept apart. */
function toAnswer(blocks: MessagesTextBlock[]): SearchAnswer | undefined {
  let text = ''
  const citations: Citation[] = []
  for (const block of blocks) {
    const start = text.length
    text += block.text
    for (const citation of webCitations(block.citations)) {
      const entry: Citation = { url: citation.url, start, end: text.length }
      if (typeof citation.title === 'string' && citation.title) entry.title = citation.title
      if (typeof citation.cited_text === 'string' && citation.cited_text) entry.citedText = citation.cited_text
      citations.push(entry)
    }
  }
  if (!text.trim()) return undefined
  return { text, citations, modelWritten: true }
}

function toUsage(response: MessagesResponse): SearchUsage | undefined {
  const usage = response.usage
  if (!isObject(usage)) return undefined
  const result: SearchUsage = {}
  const requests = isObject(usage.server_tool_use) ? usage.server_tool_use.web_search_requests : undefined
  if (typeof requests === 'number') result.searchRequests = requests
  if (typeof usage.input_tokens === 'number') result.inputTokens = usage.input_tokens
  if (typeof usage.output_tokens === 'number') result.outputTokens = usage.output_tokens
  return Object.keys(result).length ? result : undefined
}
