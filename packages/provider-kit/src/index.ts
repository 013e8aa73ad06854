/**
 * `dsh-provider-kit`: what the model-API search providers share. The
 * transport (bounded retries, size cap, no redirects, key scrubbing), one
 * client per provider instance (base URL, availability, per-call credential
 * and deadline), the wire helpers that are the same for every vendor, and
 * the Messages API family that every vendor of that wire shares.
 */
export type { Dispatcher } from 'undici'
export * from './transport.js'
export * from './model-api-client.js'
export * from './model-api-check.js'
export * from './json-search.js'
export * from './wire.js'
export * from './provider-config.js'
export * from './mount-search.js'
export * from './status-fallback.js'
export * from './messages-api.js'
export * from './messages-request.js'
export * from './messages-response.js'
export * from './messages-error.js'
export * from './messages-search.js'
