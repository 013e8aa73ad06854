import { createMessagesSearch, messagesEndpoint, messagesModelCheck } from 'dsh-provider-kit'
import type { MessagesSearchSettings, MessagesVendor, ModelSearchDeps, ModelSearchProvider } from 'dsh-provider-kit'

export const ANTHROPIC_PROVIDER_ID = 'anthropic-official'
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com'
/** Read when the row sets no baseURL. ANTHROPIC_BASE_URL belongs to the SDK's chat clients and is never read. */
export const ANTHROPIC_BASE_URL_ENV = 'ANTHROPIC_SEARCH_BASE_URL'
export const ANTHROPIC_REQUEST_EVENT = 'web/anthropic-search-llm-request'

/**
 * The web search tool versions Anthropic defines: 20250305 on every model
 * that has the tool; 20260209 adds dynamic filtering (the model filters the
 * results in code, on newer models only); 20260318 adds response inclusion.
 */
export const ANTHROPIC_WEB_SEARCH_TOOLS = ['web_search_20250305', 'web_search_20260209', 'web_search_20260318'] as const
export type AnthropicWebSearchTool = (typeof ANTHROPIC_WEB_SEARCH_TOOLS)[number]

export interface AnthropicSearchSettings extends MessagesSearchSettings {
  toolVersion: AnthropicWebSearchTool
}

/** `env` is where ANTHROPIC_SEARCH_BASE_URL is read. */
export type AnthropicSearchDeps = ModelSearchDeps

export type AnthropicSearchProvider = ModelSearchProvider

/** An empty balance comes as 400 invalid_request_error with this message, not as 402 billing_error. */
const CREDIT_TOO_LOW = /credit balance is too low/i

/** What is Anthropic's own on the Messages wire. */
const ANTHROPIC: MessagesVendor<AnthropicSearchSettings> = {
  api: {
    providerId: ANTHROPIC_PROVIDER_ID,
    providerName: 'Anthropic',
    baseURLEnv: ANTHROPIC_BASE_URL_ENV,
    defaultBaseURL: DEFAULT_ANTHROPIC_BASE_URL,
    endpoint: messagesEndpoint,
  },
  requestEvent: ANTHROPIC_REQUEST_EVENT,
  toolType: (settings) => settings.toolVersion,
  userLocationReport: {
    filter: 'user_location',
    honoured: true,
    note: "sent to Anthropic, whose web search tool documentation says it localises the search by user_location; the results cannot show it",
  },
  headers: (settings, apiKey) => ({ 'x-api-key': apiKey, 'anthropic-version': settings.apiVersion }),
  quotaMessage: CREDIT_TOO_LOW,
  check: messagesModelCheck,
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createAnthropicSearch(settings: AnthropicSearchSettings, deps: AnthropicSearchDeps): AnthropicSearchProvider {
  return createMessagesSearch(ANTHROPIC, settings, deps)
}
