import { redactUrl, WebError } from 'dsh-web'
import { createMessagesSearch, fromMessagesError, messagesEndpoint, parseMessagesErrorBody, parseObjectWith } from 'dsh-provider-kit'
import type { MessagesSearchSettings, MessagesVendor, ModelApiCall, ModelApiCheck, ModelSearchDeps, ModelSearchProvider } from 'dsh-provider-kit'

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
  check: (_settings, started) => balanceCheck(started),
}

/**
 * DeepSeek's Anthropic-compatible base documents Messages only, no Models API.
 * Its own API documents `GET /user/balance` (free, Bearer key) at the root the
 * `/anthropic` base sits under: it proves the key and that the balance can pay
 * for API calls (`is_available`). A base URL not ending in /anthropic has no
 * root this can be derived from honestly: the check then only says so.
 */
function balanceCheck(started: ModelApiCall): ModelApiCheck<Record<string, unknown>> {
  const base = new URL('.', started.endpoint) // {base}/v1/
  const root = /\/anthropic\/v1\/$/.test(base.pathname) ? new URL('../../user/balance', base) : undefined
  if (!root) throw new WebError('WEB_PROVIDER_UNAVAILABLE', `No free DeepSeek check derives from the base URL ${redactUrl(base)}: the balance endpoint sits beside a base ending in /anthropic only; \`dsh doctor --live\` makes one paid search.`, { details: { providerId: DEEPSEEK_PROVIDER_ID, noFreeCheck: true } })
  return {
    url: root,
    headers: { authorization: `Bearer ${started.apiKey}` },
    toError: (answer, context) => fromMessagesError(answer, context, { providerName: 'DeepSeek' }),
    expected: 'a balance object',
    parse: (text) => parseObjectWith('balance_infos', text, 'array'),
    errorMessage: (text) => parseMessagesErrorBody(text)?.error?.message,
    proves: (response, context) => {
      if (response.is_available === false) {
        throw new WebError('WEB_PROVIDER_QUOTA_EXHAUSTED', 'DeepSeek reports that the balance of this key cannot pay for API calls (is_available: false); top it up at platform.deepseek.com.', { details: { providerId: DEEPSEEK_PROVIDER_ID, url: redactUrl(context.endpoint), status: 200 } })
      }
      return 'the key works and its balance is available for API calls'
    },
  }
}

/** The provider object, free of Cordis: settings and dependencies in, provider out. */
export function createDeepSeekSearch(settings: DeepSeekSearchSettings, deps: DeepSeekSearchDeps): DeepSeekSearchProvider {
  return createMessagesSearch(DEEPSEEK, settings, deps)
}
