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

/** `scale` multiplies each kind's count (1: the sizes in the names), so that growth with size can be measured. */
export const PATHOLOGICAL_PAGES: Record<string, (scale?: number) => string> = {
  /** The baseline: an ordinary article. */
  'plain article': () => page(ARTICLE),
  /** 60,000 nested blocks around the article. */
  'nested blocks (60,000 deep)': (scale = 1) => page(`${'<div>'.repeat(60_000 * scale)}${ARTICLE}${'</div>'.repeat(60_000 * scale)}`),
  /** 60,000 nested unclosed inline elements before the article. */
  'nested inline, unclosed (60,000)': (scale = 1) => page(`${'<span>'.repeat(60_000 * scale)}${ARTICLE}`),
  /** 200,000 links in a list after the article. */
  'links (200,000)': (scale = 1) => page(`${ARTICLE}<ul>${Array.from({ length: 200_000 * scale }, (_, index) => `<li><a href="/i/${index}">${index}</a>`).join('')}</ul>`),
  /** One element with 100,000 attributes. */
  'attributes on one element (100,000)': (scale = 1) => page(`<div ${Array.from({ length: 100_000 * scale }, (_, index) => `data-a${index}="${index}"`).join(' ')}>${ARTICLE}</div>`),
  /** 4 MB of attribute values over 2,000 elements, and one attribute of 1 MB. */
  'attribute values (5 MB)': (scale = 1) => page(`<div data-blob="${'x'.repeat((1 << 20) * scale)}">${ARTICLE}${Array.from({ length: 2_000 * scale }, (_, index) => `<span data-state="${String(index).padEnd(2_000, 'y')}">s</span>`).join('')}</div>`),
  /** 4 MB of white space: between blocks, inside a paragraph, and in pre. */
  'white space (4 MB)': (scale = 1) => page(`${ARTICLE}${'<div>   \n\t  </div>\n    '.repeat(100_000 * scale)}<p>a${' \n'.repeat(500_000 * scale)}b</p><pre>${' '.repeat(500_000 * scale)}c</pre>`),
  /** 150,000 sibling paragraphs. */
  'sibling paragraphs (150,000)': (scale = 1) => page(`${ARTICLE}${'<p>Short line.</p>'.repeat(150_000 * scale)}`),
  /** 100,000 unclosed table cells. */
  'table cells, unclosed (100,000)': (scale = 1) => page(`${ARTICLE}<table><tr>${'<td>cell'.repeat(100_000 * scale)}</table>`),
  /** 10,000 headed sections of a sentence each after a story in plain blocks: the main area of sections around the content is looked for (sectioned-page.ts). */
  'headed sections (10,000)': (scale = 1) =>
    page(`${ARTICLE.replace('<article>', '<div class="story">').replace('</article>', '</div>')}${Array.from({ length: 10_000 * scale }, (_, index) => `<div><h2>Part ${index + 1}</h2><p>${SENTENCE}</p></div>`).join('')}`),
  /** A short blurb before 10,000 cards of a link each: the page is read again for its main area (blurb-page.ts). */
  'cards after a blurb (10,000)': (scale = 1) =>
    page(`<main><div class="intro"><h1>All recipes</h1><p>1. ${SENTENCE}</p></div><div class="grid">${Array.from({ length: 10_000 * scale }, (_, index) => `<div class="tile"><a href="/r/${index}"><span>Recipe ${index + 1}</span></a></div>`).join('')}</div></main>`),
  /** A short guide after 10,000 products with a price each (a category, by its prices): the page is read again for its grid of products (product-grid.ts). */
  'products with prices (10,000)': (scale = 1) =>
    page(`<main><div class="grid"><p>1. ${SENTENCE}</p>${Array.from({ length: 10_000 * scale }, (_, index) => `<div class="card"><a href="/p/${index}">Item ${index + 1}</a><span>$${index}.00</span></div>`).join('')}</div><div class="guide"><h2>Buying guide</h2><p>${SENTENCE}</p></div></main>`),
  /** A product's page (declared in JSON-LD) whose article ends with 20,000 copies of a paragraph: what it says twice is looked for (repeated-blocks.ts). */
  'product page, repeated paragraphs (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</article>', `${`<div><p>${SENTENCE}</p></div>`.repeat(20_000 * scale)}</article>`)}</body></html>`,
  /** A shop's product page (a declared product with a price and a basket button) whose article ends with 20,000 blocks named as footnotes: its notes are looked for (product-notes.ts). */
  'product page, blocks named as notes (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${`<div class="footnote"><p>${SENTENCE}</p></div>`.repeat(20_000 * scale)}</article>`)}</body></html>`,
  /** A shop's product page whose article ends with 20,000 definition lists of machine-named fields: its theme's fields are looked for (product-fields.ts). */
  'product page, lists of machine-named fields (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${'<dl><dt>a_b</dt><dd>1</dd><dt>c_d</dt><dd>2</dd><dt>e_f</dt><dd>3</dd><dt>g_h</dt><dd>4</dd></dl>'.repeat(20_000 * scale)}</article>`)}</body></html>`,
  /** A shop's product page whose article ends with 20,000 lists of a price in other currencies: the conversions are looked for (price-conversions.ts). */
  'product page, lists of converted prices (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${'<ul><li>GBP: $1.00</li><li>AUD: $2.00</li><li>CAD: $3.00</li></ul>'.repeat(20_000 * scale)}</article>`)}</body></html>`,
  /** A shop's product page whose article ends with 2,000 lists of twelve links each: the shop's directories are looked for (link-directories.ts). */
  'product page, lists of links (2,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${`<div><h2>More</h2><ul>${'<li><a href="/c/">Jackets</a></li>'.repeat(12)}</ul></div>`.repeat(2_000 * scale)}</article>`)}</body></html>`,
  /** A shop's product page whose article ends with 20,000 hidden panels, each under a label: its folded description is looked for (collapsed-panels.ts). */
  'product page, hidden panels (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${Array.from({ length: 20_000 * scale }, (_, index) => `<button aria-controls="p${index}">Details</button><div id="p${index}" class="collapse" hidden><p>Short line.</p></div>`).join('')}</article>`)}</body></html>`,
  /** A shop's product page whose article ends with 20,000 e-mail fields, each in a small form: the sign-ups are looked for (sign-up-forms.ts). */
  'product page, e-mail fields (20,000)': (scale = 1) =>
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Bridge reopens</title><script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Bridge reopens"}</script></head>` +
    `<body>${ARTICLE.replace('</h1>', '</h1><div><span>$29.95</span><button>Add to cart</button></div>').replace('</article>', `${'<div><form><input type="email"></form></div>'.repeat(20_000 * scale)}</article>`)}</body></html>`,
  /**
   * Formatting elements the standard re-opens in every paragraph (the
   * "reconstruct the active formatting elements" step): each new paragraph
   * clones every <b> still open, so the tree grows with the square of the
   * tags: 20,000 tags would make 200 million elements.
   */
  're-opened formatting (20,000)': (scale = 1) => page(`${ARTICLE}${Array.from({ length: 20_000 * scale }, (_, index) => `<p><b class="c${index}">x`).join('')}`),
}

/**
 * An ordinary page of about `bytes` bytes, the yardstick each pathological
 * kind is measured against: an article of sections (a heading, paragraphs
 * with a few inline links and emphasis, now and then a short list), a header
 * and a footer of links, nesting a few levels deep.
 */
export function normalPage(bytes: number): string {
  const sections: string[] = []
  let size = 0
  for (let index = 0; size < bytes; index++) {
    const section =
      `<section id="s${index}"><h2>Part ${index + 1}: the bridge</h2>` +
      `<p>${SENTENCE}<a href="/story/${index}">Read the council's notice</a> and <em>the engineers' report</em>. ${SENTENCE}</p>` +
      `<p>${SENTENCE.repeat(2)}<strong>Traffic</strong> returns in stages.</p>` +
      (index % 4 === 0 ? `<ul><li>Stage one: pedestrians</li><li>Stage two: cyclists</li><li><a href="/map/${index}">Map</a></li></ul>` : '') +
      `<p>${SENTENCE}</p></section>\n`
    sections.push(section)
    size += section.length
  }
  const links = Array.from({ length: 12 }, (_, index) => `<li><a href="/section/${index}">Section ${index}</a></li>`).join('')
  return page(`<header><nav><ul>${links}</ul></nav></header><main><article><h1>Bridge reopens</h1>${sections.join('')}</article></main><footer><ul>${links}</ul></footer>`)
}
