/**
 * Generated pages that are pathological but real: each kind stresses one
 * dimension (depth, links, attributes, white space, siblings, re-opened
 * formatting) at a size a 5 MB response can hold. Used by
 * tests/pathological-pages.spec.ts (outcomes) and bench/pathological.ts
 * (time and memory against the plain page).
 */
const SENTENCE = 'The harbour authority confirmed on Tuesday that the old swing bridge will reopen to traffic next month, after two years of repairs. '
const ARTICLE = `<article><h1>Bridge reopens</h1>${Array.from({ length: 12 }, (_, index) => `<p>${index + 1}. ${SENTENCE.repeat(3)}</p>`).join('\n')}</article>`
const page = (body: string) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Pathological</title></head><body>${body}</body></html>`

export const PATHOLOGICAL_PAGES: Record<string, () => string> = {
  /** The baseline: an ordinary article. */
  'plain article': () => page(ARTICLE),
  /** 60,000 nested blocks around the article. */
  'nested blocks (60,000 deep)': () => page(`${'<div>'.repeat(60_000)}${ARTICLE}${'</div>'.repeat(60_000)}`),
  /** 60,000 nested unclosed inline elements before the article. */
  'nested inline, unclosed (60,000)': () => page(`${'<span>'.repeat(60_000)}${ARTICLE}`),
  /** 200,000 links in a list after the article. */
  'links (200,000)': () => page(`${ARTICLE}<ul>${Array.from({ length: 200_000 }, (_, index) => `<li><a href="/i/${index}">${index}</a>`).join('')}</ul>`),
  /** One element with 100,000 attributes. */
  'attributes on one element (100,000)': () => page(`<div ${Array.from({ length: 100_000 }, (_, index) => `data-a${index}="${index}"`).join(' ')}>${ARTICLE}</div>`),
  /** 4 MB of attribute values over 2,000 elements, and one attribute of 1 MB. */
  'attribute values (5 MB)': () => page(`<div data-blob="${'x'.repeat(1 << 20)}">${ARTICLE}${Array.from({ length: 2_000 }, (_, index) => `<span data-state="${String(index).padEnd(2_000, 'y')}">s</span>`).join('')}</div>`),
  /** 4 MB of white space: between blocks, inside a paragraph, and in pre. */
  'white space (4 MB)': () => page(`${ARTICLE}${'<div>   \n\t  </div>\n    '.repeat(100_000)}<p>a${' \n'.repeat(500_000)}b</p><pre>${' '.repeat(500_000)}c</pre>`),
  /** 150,000 sibling paragraphs. */
  'sibling paragraphs (150,000)': () => page(`${ARTICLE}${'<p>Short line.</p>'.repeat(150_000)}`),
  /** 100,000 unclosed table cells. */
  'table cells, unclosed (100,000)': () => page(`${ARTICLE}<table><tr>${'<td>cell'.repeat(100_000)}</table>`),
  /**
   * Formatting elements the standard re-opens in every paragraph (the
   * "reconstruct the active formatting elements" step): each new paragraph
   * clones every <b> still open, so the tree grows with the square of the
   * tags: 20,000 tags would make 200 million elements.
   */
  're-opened formatting (20,000)': () => page(`${ARTICLE}${Array.from({ length: 20_000 }, (_, index) => `<p><b class="c${index}">x`).join('')}`),
}
