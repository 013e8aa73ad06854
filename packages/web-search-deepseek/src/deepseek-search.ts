import { createMessagesSearch, messagesEndpoint } from 'dsh-provider-kit'
import type { MessagesSearchSettings, MessagesVendor, ModelSearchDeps, ModelSearchProvider } from 'dsh-provider-kit'

export const DEEPSEEK_PROVIDER_ID = 'deepseek-official'
export const DEFAULT_DEEPSEEK_BASE_URL = 'https://api.deepseek.com/anthropic'
/** Read when the row sets no baseURL. DEEPSEEK_BASE_URL belongs to chat completions and is never read. */
export const DEEPSEEK_BASE_URL_ENV = 'DEEPSEEK_SEARCH_BASE_URL'
export const DEEPSEEK_REQUEST_EVENT = 'web/deepseek-search-llm-request'
/** The tool version every DeepSeek client found sends; the newer Anthropic versions are not verified on DeepSeek. */
export const DEEPSEEK_WEB_SEARCH_TOOL = 'web_search_20250305'

export type DeepSeekSearchSettings = MessagesSearchSettings

/** `env` is where DEEPSEEK_SEARCH_BASE_URL is read. */
export type DeepSeekSearchDeps = ModelSearchDeps

export type DeepSeekSearchProvider = ModelSearchProvider

/** What is DeepSeek's own on the Messages wire: its endpoint, headers and tool version, and what its documentation leaves open. */
const DEEPSEEK: MessagesVendor<DeepSeekSearchSettings> = {
  api: {
    providerId: DEEPSEEK_PROVIDER_ID,
    providerName: 'DeepSeek',
    baseURLEnv: DEEPSEEK_BASE_URL_ENV,
    defaultBaseURL: DEFAULT_DEEPSEEK_BASE_URL,
    endpoint: messagesEndpoint,
  },
  requestEvent: DEEPSEEK_REQUEST_EVENT,
  toolType: () => DEEPSEEK_WEB_SEARCH_TOOL,
  userLocationReport: {
    filter: 'user_location',
    honoured: false,
    note: 'sent to DeepSeek, but its documentation does not say it applies user_location, and the results cannot show it',
  },
  headers: (settings, apiKey) => ({ 'x-api-key': apiKey, 'anthropic-version': settings.apiVersion }),
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createDeepSeekSearch(settings: DeepSeekSearchSettings, deps: DeepSeekSearchDeps): DeepSeekSearchProvider {
  return createMessagesSearch(DEEPSEEK, settings, deps)
}
