/**
 * dsh-web-readers: what a fetch provider's bytes become, one pipeline for
 * every provider of this repository. HTML main-content extraction to markdown
 * or text (parse5 into linkedom, DOM cleaning, candidates, pruning), PDFs in
 * child processes of their own, feeds and JSON, all in extraction workers
 * (`ExtractPool`); the page-outcome judge (`judgePage`) that types a wall,
 * a challenge or an empty page; the fetch arguments, and the view of a
 * snapshot a call returns: a part of the text, the places a phrase occurs
 * (`find`) or the passages ranked for a few words (`query`).
 */
export { ExtractPool, type ExtractPoolOptions } from './workers/extract-pool.js'
export type { ConvertInput, ConvertOutput } from './convert/convert-body.js'
export {
  type ContentKind,
  DECODABLE_ENCODINGS,
  contentEncodings,
  decodedPrefix,
  isZlibWrapped,
  tooLargeMessage,
  undecodableMessage,
} from './convert/decode-body.js'
export { OUTCOME_HEADERS } from './outcome/challenge-vendors.js'
export { judgePage } from './outcome/page-outcome.js'
export { MAX_MAX_CHARS, readPageWindow, type PageWindow } from './view/paging.js'
export { type PageView, viewPage } from './view/page-view.js'
export { FIND_MATCHES_MAX } from './view/find-in-page.js'
export { HEADING_TITLE_MAX, OUTLINE_MAX } from './view/page-outline.js'
export { PASSAGES_MAX, RANKING_METHOD } from './view/rank-passages.js'
export type { ReaderOptions } from './reader-options.js'
