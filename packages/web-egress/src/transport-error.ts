import { WebError, abortError, redactUrl } from 'dsh-web'

/**
 * What went wrong on the way to a server, as the WebError a person can act on:
 * an aborted call as its abort, undici's timeouts as WEB_TIMEOUT, everything
 * else as WEB_FETCH_FAILED naming the URL (redacted) and the socket's code.
 */
export function transportError(error: unknown, url: URL, signal: AbortSignal): WebError {
  if (WebError.is(error)) return error
  if (signal.aborted) return abortError(signal, `Fetching ${redactUrl(url)}`)
  const code = (error as { code?: string })?.code
  const message = (error as Error)?.message ?? String(error)
  let what: string
  switch (code) {
    case 'ECONNREFUSED':
      what = 'the connection was refused'
      break
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      what = 'the connection was reset or closed early'
      break
    case 'UND_ERR_HEADERS_OVERFLOW':
      what = 'the response headers are too large'
      break
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new WebError('WEB_TIMEOUT', `${redactUrl(url)} sent no complete response headers in time.`, { cause: error, details: { url: redactUrl(url) } })
    case 'UND_ERR_BODY_TIMEOUT':
      return new WebError('WEB_TIMEOUT', `${redactUrl(url)} stopped sending its body.`, { cause: error, details: { url: redactUrl(url) } })
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new WebError('WEB_TIMEOUT', `Connecting to ${url.host} took too long.`, { cause: error, details: { url: redactUrl(url) } })
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_STATUS':
      what = 'the server sent malformed HTTP'
      break
    default:
      what = code?.startsWith('HPE_') || (error as Error)?.name === 'HTTPParserError' ? `the server sent malformed HTTP (${message})` : message
  }
  return new WebError('WEB_FETCH_FAILED', `Fetching ${redactUrl(url)} failed: ${what}${code ? ` (${code})` : ''}.`, {
    cause: error,
    details: { url: redactUrl(url) },
  })
}
