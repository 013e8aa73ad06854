/**
 * How long a page- or provider-controlled string may be when it is shown
 * outside the untrusted fence (cleaned by `cleanUntrustedLine` from dsh-host);
 * what is longer is cut with a visible ellipsis and the count cut.
 */

/** A page title, a source title, a content type, a date. */
export const TITLE_MAX = 300

/** A URL: the fetch provider's own cap, so a URL is never cut. */
export const URL_MAX = 8192

/** A snippet, a quoted passage. */
export const SNIPPET_MAX = 2000

/** A note, a warning, an error message. */
export const LINE_MAX = 1000
