import type { WebErrorCode, WebErrorDetails } from 'dsh-web'

/**
 * A failure with a web error code, raised in an extraction worker. Workers do
 * not load dsh-web (its index brings cordis, half a second per worker), so the
 * worker sends code, message and details, and the pool rethrows them as the
 * WebError of that code, adding the redacted URL to the details. Messages name
 * the document by `shownUrl`, which the pool redacted before sending the job.
 */
export class DocumentError extends Error {
  constructor(
    readonly code: WebErrorCode,
    message: string,
    readonly details: WebErrorDetails = {},
  ) {
    super(message)
    this.name = 'DocumentError'
  }
}

/** " at URL" when the caller gave a URL fit for messages, else nothing. */
export function atUrl(shownUrl: string | undefined): string {
  return shownUrl ? ` at ${shownUrl}` : ''
}
