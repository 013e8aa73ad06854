/**
 * What a fetch needs and a start does not, loaded at the first fetch
 * (http-fetcher.ts): the readers (extraction workers, the page judge, the
 * views of a snapshot), the body reader and the redirect loop, with the Node
 * modules they bring (http, zlib, worker_threads, child_process). A
 * composition that only lists its tools, as `dsh tools` does, never loads
 * them (bench:cli-start).
 */
export { STATUS_CODES } from 'node:http'
export { ExtractPool, MAX_MAX_CHARS, OUTCOME_HEADERS, judgePage, readPageWindow, viewPage } from 'dsh-web-readers'
export { classifyBody, classifyContentType, essence } from './content-type.js'
export { readBodyForWorker } from './read-body.js'
export { discard, header, requestFollowingRedirects } from './redirects.js'
