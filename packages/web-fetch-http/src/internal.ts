/**
 * The internal entry (`dsh-web-fetch-http/internal`): the pieces another fetch
 * provider of this repository reuses instead of copying, namely the address
 * policy, the route-then-vet steps with their pinned and proxied dispatchers,
 * the document readers and paging. Not a public API: what is here may change
 * with the packages that import it (today dsh-web-fetch-browser).
 */
export { ExtractPool, type ExtractPoolOptions } from './extract-pool.js'
export type { ConvertInput, ConvertOutput } from './convert-body.js'
export { MAX_MAX_CHARS, readPageWindow, slicePage, type Page, type PageWindow } from './paging.js'
export { EXTENSIONS, EXTRACTS, FORMATS, checkEnum, positive } from './http-fetcher.js'
export { judgePage } from './page-outcome.js'
