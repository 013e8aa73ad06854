import { type ProxySource, readProxySettings, redactProxy } from 'dsh-host'
import type { Schema } from 'cordis'
import { objectFields } from 'dsh-host'

/** The proxy a row's requests take, as `dsh compose` shows it: origins and the setting each came from, never credentials. */
export interface EffectiveProxy {
  /** For http targets: the proxy and where it came from, or null for direct. */
  http: { proxy: string; from: string } | null
  /** For https targets. */
  https: { proxy: string; from: string } | null
  /** The NO_PROXY entries in effect and where they came from. */
  noProxy?: { value: string; from: string }
}

type Env = Record<string, string | undefined>

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'no_proxy', 'NO_PROXY']

/** Whether a plugin's schema has a `proxy` section: only such rows have a route to show. */
export function takesProxy(schema: Schema | undefined): boolean {
  return !!objectFields(schema)?.proxy
}

function shown(source: ProxySource | undefined): EffectiveProxy['http'] {
  return source ? { proxy: redactProxy(source.url), from: source.setting } : null
}

/** The row's effective proxy: its `proxy` section where it says something, else the environment (the contract's readProxySettings, as the providers read it). */
export function effectiveProxy(config: unknown, env: Env = process.env): EffectiveProxy {
  const section = (config as { proxy?: { url?: string; noProxy?: string[] } } | undefined)?.proxy ?? {}
  const settings = readProxySettings(env, section)
  return {
    http: shown(settings.httpProxy),
    https: shown(settings.httpsProxy),
    ...(settings.noProxySetting ? { noProxy: { value: settings.noProxy, from: settings.noProxySetting } } : {}),
  }
}

/** A proxy variable that is set but that a row's own `proxy` section overrides: the operator may think it applies. */
export function overriddenProxyWarnings(rowId: string, config: unknown, env: Env = process.env): string[] {
  const section = (config as { proxy?: { url?: string; noProxy?: string[] } } | undefined)?.proxy
  if (!section) return []
  const overridden = PROXY_VARIABLES.filter((name) => env[name]).filter((name) =>
    name.toLowerCase() === 'no_proxy' ? section.noProxy !== undefined : !!section.url,
  )
  return overridden.map((name) => {
    const by = name.toLowerCase() === 'no_proxy' ? 'proxy.noProxy' : `proxy.url ${redactProxy(section.url!)}`
    return `${name} is set (${redactProxy(env[name]!)}) but row "${rowId}" does not use it: its ${by} overrides it. Remove the row's setting to use the environment, or unset ${name} if nothing should use it.`
  })
}
