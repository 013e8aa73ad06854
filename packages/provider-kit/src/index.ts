/**
 * `dsh-provider-kit`: what the model-API search providers share. The
 * transport (bounded retries, size cap, no redirects, key scrubbing), one
 * client per provider instance (base URL, availability, per-call credential
 * and deadline), the wire helpers that are the same for every vendor, and
 * the Messages API family that every vendor of that wire shares. What the
 * providers use, and nothing else: the kit's own tests read the rest from
 * the files.
 */
export { headerValue, parseRetryAfter, type HttpAnswer, type ProviderErrorContext } from './transport.js'
export { quoteProviderText, scrubSecret } from './scrub-secret.js'
export { appendRequestEvent, createModelApiClient, readSuccessBody, type ModelApi, type ModelApiCall, type ModelSearchDeps, type ModelSearchProvider, type ModelSearchProxy, type ModelSearchSettings } from './model-api-client.js'
export { parseObjectWith, runModelApiCheck, type ModelApiCheck } from './model-api-check.js'
export { postJsonSearch } from './json-search.js'
export { apiBase, appendedEndpoint, checkDomainFilters, cleanDomains, describeDomainCheck, isObject, parseJsonBody, parseJsonEnvelope, parseJsonObject, requestRecency, sentDomainFilterReport, toSearchResult, versionedEndpoint, type MappedSearch } from './wire.js'
export { credentialConfig, requestConfig, type CredentialConfig, type RequestConfig } from './provider-config.js'
export { mountSearchProvider } from './mount-search.js'
export { statusFallback } from './status-fallback.js'
export { messagesEndpoint, parseMessagesErrorBody, searchInstruction } from './messages/messages-api.js'
export { fromMessagesError } from './messages/messages-error.js'
export { createMessagesSearch, messagesModelCheck, type MessagesSearchSettings, type MessagesVendor } from './messages/messages-search.js'
