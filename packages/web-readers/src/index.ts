/**
 * dsh-web-readers: what a fetch provider's bytes become, one pipeline for
 * every provider of this repository. HTML main-content extraction to markdown
 * or text (parse5 into linkedom, DOM cleaning, candidates, pruning), PDFs in
 * child processes of their own, feeds and JSON, all in extraction workers
 * (`ExtractPool`); the page-outcome judge (`judgePage`) that types a wall,
 * a challenge or an empty page; the fetch arguments and paging of the text.
 */
export { ExtractPool, type ExtractPoolOptions } from './extract-pool.js'
export type { ConvertInput, ConvertOutput } from './convert-body.js'
export {
  type ContentKind,
  DECODABLE_ENCODINGS,
  contentEncodings,
  decodedPrefix,
  isZlibWrapped,
  tooLargeMessage,
  undecodableMessage,
} from './decode-body.js'
export { EXTENSIONS, EXTRACTS, FORMATS, checkEnum, positive } from './fetch-arguments.js'
export { OUTCOME_HEADERS } from './challenge-vendors.js'
export { judgePage } from './page-outcome.js'
export { MAX_MAX_CHARS, readPageWindow, slicePage, type Page, type PageWindow } from './paging.js'
export type { ReaderOptions } from './reader-options.js'
