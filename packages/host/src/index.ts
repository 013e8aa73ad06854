/**
 * `dsh-host`: the contract between the dsh plugins and the host that mounts
 * them. Types, service interfaces and small helpers only; it imports nothing
 * from any package above it. A harness that implements `ctx.tools`,
 * `ctx.session` and `ctx.credentials` (and optionally `ctx.network`) as
 * declared here can mount every plugin of the family; `ctx.stateStore`, the
 * state processes share, is declared here and provided by a row of its own.
 */
import type { CredentialsService } from './credentials.js'
import type { NetworkPolicyService } from './network.js'
import type { SessionsService } from './session.js'
import type { StateStore } from './state-store.js'
import type { ToolInfo, ToolPreExecute, ToolsService } from './tools.js'

import type {} from 'cordis'

type Awaitable<T> = T | Promise<T>

declare module 'cordis' {
  interface Context {
    tools: ToolsService
    session: SessionsService
    credentials: CredentialsService
    network: NetworkPolicyService
    /** The shared state, when a row provides it (dsh-state-redis); absent: each consumer keeps its state in its process. */
    stateStore: StateStore
  }
  interface Events {
    /** Return a reason to refuse the call before it runs; the model sees the reason. */
    'tools/pre-execute'(request: ToolPreExecute): Awaitable<string | undefined | void>
    /** Emitted by the tools service once a registered tool is callable (see `whenToolsRegistered`). */
    'tools/registered'(tool: ToolInfo): void
  }
}

export type { JsonValue } from './json.js'
export { CodedError, ArtifactWriteError } from './errors.js'
export type { CodedErrorDetails, CodedErrorOptions } from './errors.js'
export type * from './session.js'
export type * from './tools.js'
export { RUN_CODE } from './tools.js'
export type * from './credentials.js'
export { NET_READ } from './network.js'
export type { NetworkPolicyService } from './network.js'
export { formatIpAddress, ipInRange, parseIpAddress, parseIpRange, type IpAddress, type IpRange } from './ip-cidr.js'
export { fenceUntrusted } from './untrusted.js'
export { cleanUntrustedLine, defangFenceMarkers, removeInvisible, showControlCharacters } from './untrusted-text.js'
export type { CleanLineOptions } from './untrusted-text.js'
export { writeArtifact } from './artifact.js'
export { startModuleWorker, workerModuleBeside } from './worker-module.js'
export { limitOutput } from './output-limit.js'
export type { LimitedOutput, OutputLimitOptions } from './output-limit.js'
export { HostNameError, canonicalHost } from './host-name.js'
export { PROXY_TUNNEL_ATTEMPTS, ProxySettingError, boundTunnelAttempts, chooseRoute, describeTunnelFailure, parseProxyUrl, readProxySettings, redactProxy } from './proxy-route.js'
export type { ProxyOverride, ProxySettings, ProxySource, Route } from './proxy-route.js'
export { UnsafePathError, ensurePrivateFolder, openPrivateFile, syncFolder } from './private-files.js'
export type { ArtifactRef, WriteArtifactOptions } from './artifact.js'
export { DomainList, DomainListError, describeDomainEntry } from './domain-list.js'
export type { DomainEntry, DomainNameEntry, DomainAddressEntry, DomainRangeEntry } from './domain-list.js'
export { TOOLS_REGISTERED, ToolsNotRegisteredError, whenToolsRegistered } from './tool-readiness.js'
export type { ToolsReadinessContext } from './tool-readiness.js'
export { startWhenProvided, waitingFor } from './service-wait.js'
export type { ServiceWaitContext, ServiceWaitOptions } from './service-wait.js'
export { UnknownConfigKeyError, describeUnknownKeys, findUnknownKeys, objectFields, refuseUnknownKeys } from './config-keys.js'
export type { ConfigSchemaShape } from './config-keys.js'
export { BoundedSeenUrls, SEEN_URL_MAX_CHARS, SEEN_URLS_MAX, originOf, provenanceKey, urlsInText } from './seen-urls.js'
export type { SeenUrls, SeenUrlSource, SeenUrlsDropped, UserUrlsDeclared } from './seen-urls.js'
export { admittedSlot, type Admission, type LimitRule, type RateRule, type SlotAdmission, type StateStore } from './state-store.js'
export { within } from './within.js'
