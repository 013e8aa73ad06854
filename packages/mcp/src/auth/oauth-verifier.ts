import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto'

/**
 * Access tokens from an external OAuth authorization server, for
 * `dsh mcp --http --oauth-issuer URL --oauth-audience URI`: JWTs signed with
 * one of the server's published keys (JWKS, found through its RFC 8414 or
 * OpenID metadata, or given with --oauth-jwks-url), issued by it (`iss`),
 * for this resource (`aud`, RFC 8707), and in their validity window
 * (`exp`, `nbf`, 60 s of clock skew). The caller's name, for limits and
 * sessions, is `oauth:` and the token's `sub` (else `client_id`).
 */

export interface OAuthSettings {
  issuer: string
  /** This resource's identifier, which tokens must name in `aud`. */
  audience: string
  /** Where the keys are; found from the issuer's metadata when absent. */
  jwksUrl?: string
}

export type OAuthCheck = { ok: true; name: string } | { ok: false; reason: string }

const SKEW_SECONDS = 60
/** How soon the keys may be fetched again for a token signed with a key not seen yet. */
const REFRESH_MIN_MS = 30_000

interface Algorithm {
  hash: string | null
  options?: { padding?: number; saltLength?: number; dsaEncoding?: 'ieee-p1363' }
  /** The key types (`KeyObject.asymmetricKeyType`) a key must have to verify this algorithm. */
  keyTypes: readonly string[]
  /** For EC keys, the one curve (`asymmetricKeyDetails.namedCurve`) the algorithm is defined on. */
  curve?: string
}

/**
 * The JWS algorithms accepted, each bound to the key type (and curve) it is
 * defined for (RFC 7518, RFC 8037). A Map, so that only these exact names
 * are found: a header's `alg` of "constructor" or "__proto__" finds nothing,
 * as it would on an object's prototype chain.
 */
const ALGORITHMS: ReadonlyMap<string, Algorithm> = new Map<string, Algorithm>([
  ['RS256', { hash: 'sha256', keyTypes: ['rsa'] }],
  ['RS384', { hash: 'sha384', keyTypes: ['rsa'] }],
  ['RS512', { hash: 'sha512', keyTypes: ['rsa'] }],
  ['PS256', { hash: 'sha256', options: { padding: 6, saltLength: 32 }, keyTypes: ['rsa', 'rsa-pss'] }],
  ['ES256', { hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' }, keyTypes: ['ec'], curve: 'prime256v1' }],
  ['ES384', { hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' }, keyTypes: ['ec'], curve: 'secp384r1' }],
  ['EdDSA', { hash: null, keyTypes: ['ed25519', 'ed448'] }],
])

/** RSA keys shorter than this are refused (RFC 7518 section 3.3 asks for 2048 bits at least). */
const MIN_RSA_BITS = 2048

/** Why `key` cannot verify `alg`, or undefined when it is the key type (and curve) the algorithm is defined for. */
function keyMismatch(alg: string, algorithm: Algorithm, key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType ?? key.type
  if (!algorithm.keyTypes.includes(type)) return `the key is ${type}, not the ${algorithm.keyTypes.join(' or ')} key ${alg} needs`
  const details = key.asymmetricKeyDetails ?? {}
  if (algorithm.curve && details.namedCurve !== algorithm.curve) return `the key is on the curve ${details.namedCurve}, not the ${algorithm.curve} ${alg} needs`
  if ((type === 'rsa' || type === 'rsa-pss') && (details.modulusLength ?? 0) < MIN_RSA_BITS) return `the RSA key has ${details.modulusLength} bits, fewer than ${MIN_RSA_BITS}`
  return undefined
}

export class OAuthVerifier {
  private keys = new Map<string, { key: KeyObject; alg?: string }>()
  private fetchedAt = 0
  private jwksUrl: string | undefined

  constructor(readonly settings: OAuthSettings) {
    this.jwksUrl = settings.jwksUrl
  }

  /** Where the RFC 9728 metadata of this resource is: `/.well-known/oauth-protected-resource` and the resource's path. */
  metadataUrl(): string {
    const { origin, pathname } = new URL(this.settings.audience)
    return `${origin}/.well-known/oauth-protected-resource${pathname === '/' ? '' : pathname}`
  }

  /** The RFC 9728 protected-resource metadata document. */
  metadata() {
    return { resource: this.settings.audience, authorization_servers: [this.settings.issuer], bearer_methods_supported: ['header'] }
  }

  async check(token: string, now = Date.now()): Promise<OAuthCheck> {
    const parts = token.split('.')
    if (parts.length !== 3) return { ok: false, reason: 'not a JWT' }
    let header: any
    let claims: any
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'))
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
    } catch {
      return { ok: false, reason: 'not a JWT' }
    }
    const algorithm = typeof header?.alg === 'string' ? ALGORITHMS.get(header.alg) : undefined
    if (!algorithm) {
      const named = typeof header?.alg === 'string' ? JSON.stringify(header.alg.slice(0, 40)) : `of type ${header?.alg === null ? 'null' : typeof header?.alg}`
      return { ok: false, reason: `signature algorithm ${named} not accepted (accepted: ${[...ALGORITHMS.keys()].join(', ')})` }
    }
    let key: { key: KeyObject; alg?: string } | undefined
    try {
      key = await this.key(typeof header.kid === 'string' ? header.kid : '', now)
    } catch (error: any) {
      return { ok: false, reason: `the issuer's keys could not be read (${error?.message ?? error})` }
    }
    if (!key || (key.alg && key.alg !== header.alg)) return { ok: false, reason: 'signed with a key the issuer does not publish' }
    const mismatch = keyMismatch(header.alg, algorithm, key.key)
    if (mismatch) return { ok: false, reason: `signature algorithm ${header.alg} does not fit the key: ${mismatch}` }
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`)
    const signature = Buffer.from(parts[2], 'base64url')
    let valid = false
    try {
      valid = verify(algorithm.hash, signed, { key: key.key, ...algorithm.options }, signature)
    } catch {
      valid = false
    }
    if (!valid) return { ok: false, reason: 'bad signature' }
    if (claims?.iss !== this.settings.issuer) return { ok: false, reason: 'issued by another server' }
    const audiences = Array.isArray(claims?.aud) ? claims.aud : [claims?.aud]
    if (!audiences.includes(this.settings.audience)) return { ok: false, reason: 'issued for another resource (aud)' }
    const seconds = now / 1000
    if (typeof claims.exp !== 'number' || claims.exp + SKEW_SECONDS <= seconds) return { ok: false, reason: 'token expired' }
    if (typeof claims.nbf === 'number' && claims.nbf - SKEW_SECONDS > seconds) return { ok: false, reason: 'token not valid yet' }
    const subject = typeof claims.sub === 'string' && claims.sub ? claims.sub : typeof claims.client_id === 'string' ? claims.client_id : ''
    if (!subject) return { ok: false, reason: 'token names no subject' }
    return { ok: true, name: `oauth:${subject}` }
  }

  /** The key of `kid`, fetching the key set when it is not known (at most every 30 s). */
  private async key(kid: string, now: number): Promise<{ key: KeyObject; alg?: string } | undefined> {
    const known = this.keys.get(kid) ?? (kid === '' && this.keys.size === 1 ? [...this.keys.values()][0] : undefined)
    if (known || now - this.fetchedAt < REFRESH_MIN_MS) return known
    this.fetchedAt = now
    await this.fetchKeys()
    return this.keys.get(kid) ?? (kid === '' && this.keys.size === 1 ? [...this.keys.values()][0] : undefined)
  }

  private async fetchKeys(): Promise<void> {
    this.jwksUrl ??= await discoverJwks(this.settings.issuer)
    const response = await fetch(this.jwksUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`The key set ${this.jwksUrl} answered HTTP ${response.status}.`)
    const body = (await response.json()) as { keys?: (JsonWebKey & { kid?: string; alg?: string; use?: string })[] }
    const keys = new Map<string, { key: KeyObject; alg?: string }>()
    for (const jwk of body.keys ?? []) {
      if (jwk.use && jwk.use !== 'sig') continue
      try {
        keys.set(jwk.kid ?? '', { key: createPublicKey({ key: jwk, format: 'jwk' }), alg: jwk.alg })
      } catch {
        // A key of a type Node cannot read is skipped: tokens signed with it are refused.
      }
    }
    this.keys = keys
  }
}

/** The issuer's `jwks_uri`, from its RFC 8414 metadata, else its OpenID configuration. */
async function discoverJwks(issuer: string): Promise<string> {
  const base = issuer.replace(/\/+$/, '')
  const { origin, pathname } = new URL(base)
  const candidates = [`${origin}/.well-known/oauth-authorization-server${pathname === '/' ? '' : pathname}`, `${base}/.well-known/openid-configuration`]
  for (const url of candidates) {
    const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) }).catch(() => undefined)
    if (!response?.ok) continue
    const metadata = (await response.json().catch(() => undefined)) as { jwks_uri?: unknown } | undefined
    if (typeof metadata?.jwks_uri === 'string') return metadata.jwks_uri
  }
  throw new Error(`Found no jwks_uri in the metadata of ${issuer} (tried ${candidates.join(' and ')}); give the key set with --oauth-jwks-url URL.`)
}
