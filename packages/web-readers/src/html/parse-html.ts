import { buildTree } from './build-tree.js'
import type { DomDocument } from './dom.js'
import { placeStreamingSegments } from './streaming-segments.js'

/** Parses HTML to a document: parse5 into linkedom in production, jsdom in bench/extract-dom.ts for comparison. */
export interface HtmlParser {
  name: string
  parse(html: string, url: string): DomDocument
}

/**
 * The tree a browser builds (the HTML standard's tree construction, by
 * parse5), as linkedom nodes, less what never renders (build-tree.ts), with
 * React's streamed segments where its scripts would put them.
 */
export const htmlParser: HtmlParser = {
  name: 'parse5',
  parse(html: string) {
    const tree = buildTree(html)
    placeStreamingSegments(tree)
    return tree.document
  },
}
