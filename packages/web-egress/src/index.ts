/**
 * dsh-web-egress: where a fetch provider's requests may go and how they get
 * there, one policy for every provider of this repository. The address policy
 * (URL form, domain lists, name resolution with every answer vetted, the
 * operator's trusted hosts), the pinned dispatcher that connects only to the
 * vetted address, the proxy route's dispatcher and its refusals, and the
 * error a failed connection becomes.
 */
export { AddressPolicy, withFixedAnswers, type AddressPolicyOptions, type LookupAddress, type LookupFunction, type VettedDestination } from './address-policy.js'
export type { EgressOptions, ProxyOptions } from './egress-options.js'
export { loadUndici } from './lazy-undici.js'
export { PinnedAgents, type PinnedTimeouts } from './pinned-dispatcher.js'
export { createProxyDispatcher, proxyFailure, type ProxyDispatcher, type ProxyDispatcherOptions, type ProxyHop, type ProxyTimeouts } from './proxy-dispatcher.js'
export { transportError } from './transport-error.js'
