import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { extractHtml } from '../src/html/extract-html.js'
import { chromeKind, removePageChrome, removeSiteNavigation } from '../src/html/page-chrome.js'
import { htmlParser } from '../src/html/parse-html.js'
import type { DomElement } from '../src/html/dom.js'

/** The body of `inner` after removePageChrome: its text, and how many elements went. */
function clean(inner: string) {
  const body = htmlParser.parse(`<!doctype html><html><body>${inner}</body></html>`, 'https://site.example/').body!
  const removed = removePageChrome(body)
  return { removed, text: (body.textContent ?? '').replace(/\s+/g, ' ').trim() }
}

const STORY = '<p>The ferry runs again from Monday, after a winter of repairs to both of its landing stages.</p>'
const NEWSLETTER = '<footer class="site-footer"><h4>Join our newsletter</h4><p>Ten percent off your first order when you sign up.</p><ul><li><a href="/about">About us</a></li><li><a href="/careers">Careers</a></li></ul></footer>'

describe('page chrome (the site footer, dialogs, consent prompts) is removed before the content is chosen', () => {
  it("removes the site's footer, and leaves a <footer> inside an <article> or <main> (the section's own)", () => {
    const { removed, text } = clean(`<article>${STORY}<footer>Posted by Ana in Harbour news</footer></article>${NEWSLETTER}`)
    assert.equal(removed, 1)
    assert.equal(text, 'The ferry runs again from Monday, after a winter of repairs to both of its landing stages.Posted by Ana in Harbour news')
    assert.equal(clean(`<main>${STORY}<div role="contentinfo">Filed under harbour news</div></main>`).removed, 0)
    assert.equal(clean(`${STORY}<div role="contentinfo">Copyright the Harbour Trust</div>`).text, 'The ferry runs again from Monday, after a winter of repairs to both of its landing stages.')
  })

  it('removes dialogs by their role, aria-modal or a <dialog> element, closed or open', () => {
    const { removed, text } = clean(`${STORY}<div role="dialog" hidden><p>Added to cart</p></div><div role="alertdialog">Your session ends soon</div><div aria-modal="true"><h2>Select a size</h2></div><dialog><h2>Size guide</h2><p>Measure your chest.</p></dialog>`)
    assert.equal(removed, 4)
    assert.equal(text, 'The ferry runs again from Monday, after a winter of repairs to both of its landing stages.')
  })

  it('removes consent prompts by a whole class or id word (OneTrust, a cookie bar, a GDPR notice)', () => {
    const { removed, text } = clean(`<div id="onetrust-consent-sdk"><p>We use cookies to improve your experience.</p></div>${STORY}<section id="gdpr-banner">Manage your choices</section><div class="cookieBar">Accept all</div>`)
    assert.equal(removed, 3)
    assert.equal(text, 'The ferry runs again from Monday, after a winter of repairs to both of its landing stages.')
  })

  it("leaves Adobe Experience Manager's components (cmp-text, cmp-container) and words that only contain a consent word", () => {
    const page = `<div class="cmp-container"><div class="text cmp-text">${STORY}</div></div><div class="cookiecutter-recipes">Shortbread shapes</div>`
    const { removed, text } = clean(page)
    assert.equal(removed, 0)
    assert.match(text, /^The ferry runs again.*Shortbread shapes$/)
  })

  it('never removes an element that holds the headline, the <main> or an <article>, whatever it is called', () => {
    const body = htmlParser.parse(
      `<!doctype html><html><body><div role="dialog"><h1>Ferry timetable</h1>${STORY}</div><div class="consent-wrapper"><main>${STORY}</main></div><footer><article>${STORY}</article></footer></body></html>`,
      'https://site.example/',
    ).body!
    const kinds = Array.from((body as unknown as { children: ArrayLike<DomElement> }).children).map((element) => chromeKind(element, body))
    assert.deepEqual(kinds, [undefined, undefined, undefined])
    assert.equal(removePageChrome(body), 0)
  })
})

describe('through the extraction', () => {
  const items = ['Harbour walk', 'Lighthouse tour', 'Seal trip'].map((name, index) => `<li><a href="/trips/${index}">${name}</a><span>From 12 euros</span></li>`).join('')
  const signUp = `<footer class="ridge-footer"><h3>Get first word of new trips</h3><p>${'Join the list and we will write when the spring timetable is out, and when a new trip opens for booking along the coast. '.repeat(6)}</p><form><input type="email"><button>Sign up</button></form></footer>`
  const consent = `<div id="onetrust-consent-sdk" role="dialog"><p>${'We and our partners use cookies and similar technologies to store and read information on your device, to measure and to personalise. '.repeat(5)}</p><button>Accept all</button></div>`

  it("reads a short listing as its items, not as the footer's sign-up or the cookie notice readability's second reading would pick", () => {
    const html = `<!doctype html><html><head><title>Trips | Coast Co</title></head><body><header><a href="/">Coast Co</a></header><div class="grid"><h2>Our trips</h2><ul>${items}</ul></div>${signUp}${consent}</body></html>`
    const { text } = extractHtml({ html, url: 'https://site.example/trips', format: 'text', extract: 'main' })
    assert.match(text, /Harbour walk/)
    assert.match(text, /Seal trip/)
    assert.doesNotMatch(text, /first word of new trips|cookies/)
  })

  it("falls back to the body without its chrome and the site's navigation, and says so; a page that is only chrome reads as empty", () => {
    const navigation = '<header class="masthead"><a href="/">Coast Co</a><nav><a href="/trips">Trips</a><a href="/about">About</a></nav></header><div role="navigation"><a href="/gifts">Gift cards</a></div>'
    const html = `<!doctype html><html><body>${navigation}<p>Closed today.</p>${signUp}${consent}</body></html>`
    const { text, warnings, extractor } = extractHtml({ html, url: 'https://site.example/', format: 'text', extract: 'main' })
    assert.equal(extractor, 'parse5+full(fallback)')
    assert.equal(text, 'Closed today.')
    assert.ok(warnings.some((warning) => warning.includes("the page body is returned instead, without the site's navigation, header and footer, its menus, dialogs and consent prompts")), warnings.join('\n'))
    const chromeOnly = extractHtml({ html: `<!doctype html><html><body>${navigation}${signUp}${consent}</body></html>`, url: 'https://site.example/', format: 'text', extract: 'main' })
    assert.equal(chromeOnly.text, '')
  })
})

describe("the site's navigation", () => {
  it('is a <nav>, a <header> or role navigation or banner outside an <article> or <main>, never one holding the headline', () => {
    const body = htmlParser.parse(
      `<!doctype html><html><body><header><a href="/">Coast Co</a></header><nav>Trips About</nav><div role="banner">Spring sale</div><main><header>Harbour news, 4 May</header><nav>Page 1 2 3</nav>${STORY}</main><header><h1>Ferry timetable</h1></header></body></html>`,
      'https://site.example/',
    ).body!
    assert.equal(removeSiteNavigation(body), 3)
    assert.equal((body.textContent ?? '').replace(/\s+/g, ' ').trim(), `Harbour news, 4 MayPage 1 2 3${'The ferry runs again from Monday, after a winter of repairs to both of its landing stages.'}Ferry timetable`)
  })
})
