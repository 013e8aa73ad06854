/**
 * A search provider on the Messages API: one non-streaming request with the
 * server-side web search tool, its answer mapped to the neutral result. The
 * vendor package gives what is its own (id, base URL, headers, tool version,
 * what its documentation says of user_location, its request event) and keeps
 * the plugin face.
 */

import type { ProviderCall, SearchFilterReport, SearchRequest, SearchResult } from 'dsh-web'
import { parseMessagesErrorBody, parseMessagesResponse } from './messages-api.js'
import { fromMessagesError } from './messages-error.js'
import { toMessagesRequest } from './messages-request.js'
import { fromMessagesResponse } from './messages-response.js'
import { createModelApiClient } from '../model-api-client.js'
import { postJsonSearch } from '../json-search.js'
import type { ModelApi, ModelApiCall, ModelSearchDeps, ModelSearchProvider, ModelSearchSettings } from '../model-api-client.js'
import { type ModelApiCheck, parseObjectWith, runModelApiCheck } from '../model-api-check.js'
import type { HttpAnswer } from '../transport.js'
import { toSearchResult } from '../wire.js'

/** The settings every Messages provider takes besides the kit's own. */
export interface MessagesSearchSettings extends ModelSearchSettings {
  model: string
  maxTokens: number
  maxUses: number
  /** The anthropic-version header. */
  apiVersion: string
}

/** One vendor of the Messages wire. */
export interface MessagesVendor<Settings extends MessagesSearchSettings> {
  api: ModelApi
  /** The log-only event of each HTTP attempt, e.g. web/anthropic-search-llm-request. */
  requestEvent: string
  /** The dated web search tool type this vendor takes, from its settings. */
  toolType(settings: Settings): string
  /** The report of a user_location sent (see MessagesRequestFamily). */
  userLocationReport: SearchFilterReport
  /** The vendor's headers besides content-type and accept; the key goes here and nowhere else. */
  headers(settings: Settings, apiKey: string): Record<string, string>
  /** See MessagesErrorFamily. */
  quotaMessage?: RegExp
  /**
   * `dsh doctor`'s free request (`messagesModelCheck` where the vendor serves
   * the Models API beside Messages); left out where the vendor documents none.
   */
  check?(settings: Settings, started: ModelApiCall, vendor: MessagesVendor<Settings>): ModelApiCheck<unknown>
}

/**
 * The Models API's `GET {base}/v1/models/{model}` with the vendor's headers:
 * free, and it proves the key, the base URL and that the configured model
 * exists (Anthropic, "Get a Model": platform.claude.com/docs/en/api/models/retrieve).
 */
export function messagesModelCheck<Settings extends MessagesSearchSettings>(settings: Settings, started: ModelApiCall, vendor: MessagesVendor<Settings>): ModelApiCheck<unknown> {
  const family = { providerName: vendor.api.providerName, ...(vendor.quotaMessage ? { quotaMessage: vendor.quotaMessage } : {}) }
  return {
    // Beside {base}/v1/messages.
    url: new URL(`models/${encodeURIComponent(settings.model)}`, started.endpoint),
    headers: vendor.headers(settings, started.apiKey),
    toError: (answer, context) => fromMessagesError(answer, context, family),
    expected: 'a Models API model',
    parse: (text) => parseObjectWith('id', text),
    errorMessage: (text) => parseMessagesErrorBody(text)?.error?.message,
    proves: () => `the key works and the model ${settings.model} exists`,
  }
}

/** The provider object, free of Cordis: vendor, settings and dependencies in, provider out. */
export function createMessagesSearch<Settings extends MessagesSearchSettings>(vendor: MessagesVendor<Settings>, settings: Settings, deps: ModelSearchDeps): ModelSearchProvider {
  const { api } = vendor
  const client = createModelApiClient(api, settings, deps)
  const family = { providerName: api.providerName, toolType: vendor.toolType(settings), userLocationReport: vendor.userLocationReport }
  const errorFamily = { providerName: api.providerName, ...(vendor.quotaMessage ? { quotaMessage: vendor.quotaMessage } : {}) }

  async function search(request: SearchRequest, call: ProviderCall): Promise<SearchResult> {
    const started = await client.startSearch(request, call)
    const wire = toMessagesRequest(request, settings, family)
    const toError = (answer: HttpAnswer) => fromMessagesError(answer, started.errorContext, errorFamily)
    const response = await postJsonSearch(started, call, {
      headers: vendor.headers(settings, started.apiKey),
      body: wire.body,
      requestEvent: vendor.requestEvent,
      eventData: { apiVersion: settings.apiVersion },
      toError,
      expected: 'a Messages API response',
      parse: parseMessagesResponse,
      errorMessage: (text) => parseMessagesErrorBody(text)?.error?.message,
    })
    const mapped = fromMessagesResponse(response, api.providerId, api.providerName)
    return toSearchResult(api.providerId, request, mapped, wire.reportFilters(mapped.sources))
  }

  return {
    id: api.providerId,
    available: () => client.available(),
    unavailableReason: () => client.unavailableReason(),
    search,
    ...(vendor.check ? { check: (call: ProviderCall) => runModelApiCheck(client, call, (started) => vendor.check!(settings, started, vendor)) } : {}),
    close: () => client.close(),
  }
}
