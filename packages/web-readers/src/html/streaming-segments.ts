import type { DomElement, DomNode } from './dom.js'
import type { BuiltTree } from './build-tree.js'

const COMMENT_NODE = 8
type Comment = DomNode & { data: string }

/** $RS(segment, placeholder): the segment's children replace the placeholder. */
function placeSegment(segment: DomElement, placeholder: DomElement) {
  const parent = placeholder.parentNode
  if (!parent) return
  while (segment.firstChild) parent.insertBefore(segment.firstChild, placeholder)
  placeholder.remove()
  segment.remove()
}

/**
 * $RC(boundary, segment): the boundary's fallback, from its `<!--$?-->` marker to
 * the matching `<!--/$-->`, is removed and the segment's children take its place.
 */
function completeBoundary(boundary: DomElement | undefined, segment: DomElement) {
  segment.remove()
  const start = (boundary as (DomElement & { previousSibling: DomNode | null }) | undefined)?.previousSibling as Comment | null | undefined
  const parent = start?.parentNode
  if (!boundary || !start || !parent || start.nodeType !== COMMENT_NODE) return
  let node: DomNode | null = start.nextSibling
  let depth = 0
  while (node) {
    if (node.nodeType === COMMENT_NODE) {
      const data = (node as Comment).data
      if (data === '/$') {
        if (depth === 0) break
        depth--
      } else if (data === '$' || data === '$?' || data === '$!') depth++
    }
    const next: DomNode | null = node.nextSibling
    node.remove()
    node = next
  }
  while (segment.firstChild) parent.insertBefore(segment.firstChild, node)
  start.data = '$'
}

/**
 * React (and Next.js) stream a page's late parts as `<div hidden id="S:0">`
 * after the shell, and inline scripts (`$RC`, `$RS`) move each into its
 * place; Marko (eBay) streams `<div id="af<name><n>" style="display:none">`
 * fragments that `$af<name>(n)` moves into `#af<name>ph<n>`, as `$RS` does. The scripts never run here, so the moves they name are made as they
 * would be, and a segment no script places is shown where it stands: a
 * browser shows the content either way, readability would drop it as hidden.
 */
export function placeStreamingSegments({ moves, streamingIds }: Pick<BuiltTree, 'moves' | 'streamingIds'>) {
  if (!streamingIds.size) return
  for (const move of moves) {
    if (move.kind === 'RS') {
      const segment = streamingIds.get(move.from)
      const placeholder = streamingIds.get(move.to)
      if (segment && placeholder && segment.parentNode) placeSegment(segment, placeholder)
    } else {
      const segment = streamingIds.get(move.to)
      if (segment && segment.parentNode) completeBoundary(streamingIds.get(move.from), segment)
    }
  }
  for (const [id, element] of streamingIds) {
    if (/S:[0-9a-z]+$/i.test(id) && element.parentNode && element.hasAttribute('hidden')) element.removeAttribute('hidden')
  }
}
