import { WebError } from 'dsh-web'

/**
 * How the credential travels, for an instance behind a proxy that wants one
 * (SearXNG has no authentication of its own): `basic`, a `user:password` value
 * sent as HTTP Basic; `bearer`, a token sent as `Authorization: Bearer`;
 * `header`, a token sent as the value of the header `authHeader` names.
 */
export type SearxngAuthScheme = 'basic' | 'bearer' | 'header'

export interface SearxngAuthSettings {
  /** Name of the credential; unset, nothing is looked up or sent. */
  authEnv?: string
  /** A literal value, used only when the named credential is not found. */
  authValue?: string
  authScheme: SearxngAuthScheme
  /** The header's name, for authScheme `header`. */
  authHeader?: string
}

/** The headers that carry one call's credential, and what to scrub from anything quoted besides the value itself. */
export interface SearxngAuth {
  headers: Record<string, string>
  secrets: string[]
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** What is wrong with the auth settings, naming the key to fix; undefined when nothing is. Local, no credential read. */
export function authSettingsProblem(settings: SearxngAuthSettings): string | undefined {
  if (settings.authScheme !== 'header') return undefined
  if (!settings.authHeader) return 'authScheme header needs authHeader, the name of the header that carries the token'
  if (!HEADER_NAME.test(settings.authHeader)) return `authHeader ${JSON.stringify(settings.authHeader)} is not a valid header name`
  return undefined
}

/**
 * The credential of this call as request headers; none when there is no
 * credential. A value that cannot be sent as the scheme wants is refused
 * before anything is dispatched, naming the credential, never its value.
 */
export function toSearxngAuth(settings: SearxngAuthSettings, value: string | undefined, described: string | undefined, providerId: string): SearxngAuth {
  if (value === undefined) return { headers: {}, secrets: [] }
  const refuse = (why: string) =>
    new WebError('WEB_PROVIDER_AUTH_FAILED', `SearXNG: ${described ?? 'the credential'} ${why}; nothing was sent.`, {
      details: { providerId, ...(settings.authEnv ? { credential: settings.authEnv } : {}) },
    })
  if (/[\r\n\0]/.test(value)) throw refuse('holds a line break or NUL, which no header can carry')
  switch (settings.authScheme) {
    case 'basic': {
      const colon = value.indexOf(':')
      if (colon <= 0) throw refuse('is not of the form user:password that authScheme basic needs')
      const token = Buffer.from(value, 'utf8').toString('base64')
      return { headers: { authorization: `Basic ${token}` }, secrets: [value.slice(colon + 1), token] }
    }
    case 'bearer':
      return { headers: { authorization: `Bearer ${value}` }, secrets: [] }
    case 'header':
      return { headers: { [settings.authHeader!.toLowerCase()]: value }, secrets: [] }
  }
}
