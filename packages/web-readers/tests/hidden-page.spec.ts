import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { isHidden } from '../src/html/dom-clean.js'
import { findHiddenPage, MIN_CHARS, showHiddenPage } from '../src/html/hidden-page.js'
import { htmlParser } from '../src/html/parse-html.js'
import { assertInOrder, assertNone } from './assert-text.js'

const ROAST = [
  'Meet the yin to your yang: a bold dark roast that has your back all day long, through the daily grind.',
  'Certified Fair Trade and Organic, our blend of arabica beans for flavour and robusta for strength keeps the midday crash away.',
  'Ground fresh every week in small batches, it brews well in a drip machine, a French press or a moka pot alike.',
  'The beans come from farms in Peru, India and Sumatra that we visit every harvest and pay above the market price.',
  'A bag holds sixteen ounces, enough for about forty cups, and keeps fresh for a month once opened if sealed again.',
  'Roasted darker than our house blend, it tastes of cocoa and black cherry, with a low acidity and a long finish.',
]
const paragraphs = (lines: string[]) => lines.map((line) => `<p>${line}</p>`).join('')
/** Over MIN_CHARS: the description said twice, as a shop's two layouts do. */
const DESCRIPTION = paragraphs(ROAST).repeat(2)
const BAR = '<div class="announcement-bar"><p>Free shipping on orders over $50</p></div>'
const NAV = `<header><nav><ul>${Array.from({ length: 12 }, (_, n) => `<li><a href="/c/${n}">Category number ${n}</a></li>`).join('')}</ul></nav></header>`

function page(main: string): string {
  return `<!doctype html><html><head><title>Dark Roast Coffee</title></head><body>${NAV}${BAR}${main}<footer><p>© The Coffee Company</p></footer></body></html>`
}

const read = (html: string, format: 'text' | 'markdown' = 'text') => extractHtml({ html, url: 'https://coffee.example/dark-roast', format, extract: 'main' })

describe('a page hidden until its scripts run', () => {
  it("is read when a lock app's wrapper hides all of it with display:none, and the reader is told", () => {
    const html = page(`<main><div class="lockdown-content" style="display:none;"><h1>Dark Roast Coffee</h1><div class="price">$19.99</div>${DESCRIPTION}</div></main>`)
    const { text, warnings } = read(html)
    assertInOrder(text, [ROAST[0]!, ROAST[1]!, ROAST[2]!])
    assert.ok(warnings.some((warning) => /hides its content until its scripts run/.test(warning)), warnings.join('\n'))
    // markdown reads the same page
    assertInOrder(read(html, 'markdown').text, [ROAST[0]!, ROAST[2]!])
  })

  it('what is hidden inside the shown page stays hidden', () => {
    const { text } = read(page(`<main><div class="lockdown-content" style="display:none"><h1>Dark Roast Coffee</h1>${DESCRIPTION}<div hidden><p>Sold out in your region: join the waiting list.</p></div></div></main>`))
    assertInOrder(text, [ROAST[0]!])
    assertNone(text, ['waiting list'])
  })

  it('a hidden part of a page that shows its content stays hidden: a long page is not read again, a short one only when the hidden part is most of it', () => {
    const hidden = (times: number) => `<div style="display:none"><p>The full transcript of the roaster's interview, hidden behind a button.</p>${DESCRIPTION.repeat(times)}</div>`
    // read as it stands, THIN_CHARS or more: not read again, whatever it hides
    const long = read(page(`<main><h1>Dark Roast Coffee</h1>${DESCRIPTION}${hidden(10)}</main>`))
    assertInOrder(long.text, [ROAST[0]!, ROAST[5]!])
    assertNone(long.text, ['transcript'])
    // read again, but the hidden part is not VISIBLE_RATIO times what the page shows
    const short = read(page(`<main><h1>Dark Roast Coffee</h1>${paragraphs(ROAST.slice(0, 3))}${hidden(1)}</main>`))
    assertInOrder(short.text, [ROAST[0]!, ROAST[2]!])
    assertNone(short.text, ['transcript'])
  })
})

describe('findHiddenPage', () => {
  const find = (body: string) => {
    const document = htmlParser.parse(`<html><body>${body}</body></html>`, 'https://coffee.example/')
    return findHiddenPage(document.body!)?.getAttribute('id') ?? undefined
  }
  const text = (chars: number) => `<p>${'word '.repeat(Math.ceil(chars / 5))}</p>`

  it('finds a page hidden by display:none, visibility:hidden, aria-hidden or the hidden attribute', () => {
    for (const hiding of ['style="display:none"', 'style="color:#111; visibility: hidden"', 'aria-hidden="true"', 'hidden']) {
      assert.equal(find(`<p>Loading…</p><div id="page" ${hiding}>${text(MIN_CHARS + 50)}</div>`), 'page', hiding)
    }
    assert.equal(find(`<div id="page">${text(MIN_CHARS + 50)}</div>`), undefined)
  })

  it('a hidden dialog is never the page, however long; the page hidden beside it is', () => {
    for (const dialog of ['role="dialog"', 'role="alertdialog"', 'aria-modal="true"']) {
      assert.equal(find(`<div id="terms" ${dialog} style="display:none">${text(5000)}</div>`), undefined, dialog)
      assert.equal(find(`<div id="terms" ${dialog} style="display:none">${text(5000)}</div><div id="page" style="display:none">${text(2000)}</div>`), 'page', dialog)
    }
    assert.equal(find(`<dialog id="terms" hidden>${text(5000)}</dialog>`), undefined)
  })

  it("showHiddenPage lifts the page's own hiding, !important included, and leaves its style's other rules", () => {
    for (const hiding of ['style="display: none !important; color: #111"', 'style="visibility:hidden"', 'aria-hidden="true"', 'hidden']) {
      const document = htmlParser.parse(`<html><body><p>Loading…</p><div id="page" ${hiding}>${text(MIN_CHARS + 50)}</div></body></html>`, 'https://coffee.example/')
      assert.equal(showHiddenPage(document.body!), true, hiding)
      const shown = document.querySelector('#page')!
      assert.equal(isHidden(shown), false, shown.outerHTML.slice(0, 120))
      if (hiding.includes('color')) assert.match(shown.getAttribute('style') ?? '', /color: #111/)
      assert.equal(showHiddenPage(document.body!), false, 'nothing hidden is left to show')
    }
  })

  it('wants MIN_CHARS of hidden text, and VISIBLE_RATIO times what the page shows outside its chrome', () => {
    assert.equal(find(`<div id="page" style="display:none">${text(MIN_CHARS + 50)}</div>`), 'page')
    assert.equal(find(`<div id="page" style="display:none">${text(MIN_CHARS - 100)}</div>`), undefined)
    // the page shows a fifth of the hidden text or more: the hidden part is a part
    assert.equal(find(`<div id="page" style="display:none">${text(2000)}</div><main>${text(500)}</main>`), undefined)
    // text in navigation and footers counts on neither side
    assert.equal(find(`<nav>${text(5000)}</nav><div id="page" style="display:none">${text(2000)}</div>`), 'page')
    assert.equal(find(`<div id="menu" style="display:none"><nav>${text(5000)}</nav></div><main>${text(100)}</main>`), undefined)
  })
})
