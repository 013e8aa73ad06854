import { isIPv4 } from 'node:net'
import { CodedError } from './errors.js'

/**
 * The one canonical form of a host name, computed by one function and used
 * by everything that decides where a request goes or whether it may go: the
 * route choice (NO_PROXY), every domain list, trusted-host entries, fixed
 * answers, the local-name rule, the cache key and what is sent (Host, the
 * CONNECT authority, the absolute URL a proxy gets). A check that read one
 * spelling while the proxy read another would check nothing.
 *
 * The form is the WHATWG URL parser's (lower case, punycode, IPv4 in any
 * spelling as dotted quad, IPv6 compressed and bracketed, percent-escapes
 * decoded) with a single trailing dot removed (`example.com.` is the same
 * host). Names the parser keeps but a resolver or proxy may read otherwise
 * are refused: an empty label (`a..b`, `.a`, `a..`), a label with
 * characters other than letters, digits, `-` and `_` (the parser keeps
 * `!$&'()*+,;=`), a label over 63 or a name over 253 characters.
 */

/** A host that has no canonical form; `details.host` is the input, cut to 200 characters. */
export class HostNameError extends CodedError<'INVALID_ARGUMENT'> {
  constructor(message: string, host: string) {
    super('INVALID_ARGUMENT', message, { details: { host: host.slice(0, 200) } })
    this.name = 'HostNameError'
  }

  static override is(value: unknown): value is HostNameError {
    return CodedError.is(value) && (value as Error).name === 'HostNameError'
  }
}

const LABEL = /^[a-z0-9_-]{1,63}$/
/** Longer input is refused before it is parsed (a name is at most 253 characters; Unicode and escapes take more). */
const MAX_INPUT = 1024

function refuse(input: string, reason: string): never {
  const shown = input.length > 80 ? `${JSON.stringify(input.slice(0, 80))}…` : JSON.stringify(input)
  throw new HostNameError(`The host ${shown} is not a host name every resolver and proxy reads the same way: ${reason}.`, input)
}

/**
 * The canonical host for a URL's `hostname` or an operator's entry (a name
 * in any case or in Unicode, an IPv4 address, an IPv6 address with or
 * without brackets): a name without trailing dot, a dotted-quad IPv4
 * address, or a bracketed IPv6 address. Idempotent. Throws HostNameError
 * (INVALID_ARGUMENT) for anything else, saying why.
 */
export function canonicalHost(input: string): string {
  if (typeof input !== 'string' || !input) refuse(String(input ?? ''), 'it is empty')
  if (input.length > MAX_INPUT) refuse(input, `it is longer than ${MAX_INPUT} characters`)
  if (/[\s/?#@\\]/.test(input)) refuse(input, 'it holds a space, "/", "?", "#", "@" or "\\", which no host holds')
  const bracketed = input.startsWith('[')
  if (bracketed ? !input.endsWith(']') : input.includes(':') && !/^[0-9a-f:.]+$/i.test(input)) refuse(input, 'it holds ":" outside an IPv6 address (a port is not part of the host)')
  let hostname: string
  try {
    const url = new URL(`http://${!bracketed && input.includes(':') ? `[${input}]` : input}/`)
    if (url.port || url.username || url.password || url.pathname !== '/') throw new TypeError('not a host alone')
    hostname = url.hostname
  } catch {
    refuse(input, 'the URL parser does not take it as a host')
  }
  if (hostname.startsWith('[') || isIPv4(hostname)) return hostname
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname
  if (name.length > 253) refuse(input, 'it is longer than 253 characters')
  for (const label of name.split('.')) {
    if (!label) refuse(input, 'it has an empty label (a leading dot, two dots in a row, or more than one trailing dot)')
    if (label.length > 63) refuse(input, `the label "${label.slice(0, 20)}…" is longer than 63 characters`)
    if (!LABEL.test(label)) refuse(input, `the label "${label}" holds characters other than letters, digits, "-" and "_"`)
  }
  return name
}
