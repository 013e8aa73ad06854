import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { workDone } from '../../web-readers/src/html/dom-walk.js'
import { createHttpFetcher } from '../src/http-fetcher.js'
import { htmlParser } from '../../web-readers/src/html/parse-html.js'
import { WORD_CAP, readPageSignals } from '../../web-readers/src/outcome/page-signals.js'
import { DIRECT, type TestServer, signal, startServer } from './helpers.js'

// Pages written for these tests (tests/fixtures/outcome), each served with the status and headers its wall would send.
interface Route {
  file?: string
  body?: string
  status?: number
  type?: string
  headers?: Record<string, string>
}

const ROUTES: Record<string, Route> = {
  '/ok-short': { file: 'ok-short' },
  '/ok-article-mentions': { file: 'ok-article-mentions' },
  '/ok-bundles-ssr': { file: 'ok-bundles-ssr' },
  '/ok-contact-recaptcha': { file: 'ok-contact-recaptcha' },
  '/needs-js-root': { file: 'needs-js-root' },
  '/needs-js-bundles': { file: 'needs-js-bundles' },
  '/needs-js-placeholder-root': { file: 'needs-js-placeholder-root' },
  '/empty': { file: 'empty' },
  // A store's product page served as its app's empty root and the footer around it: 120 words, all in links.
  '/needs-js-root-among-links': {
    body: `<!doctype html><html><head><title>Trail 40 backpack</title></head><body><div id="root"></div><footer>${Array.from({ length: 30 }, (_, index) => `<a href="/help/${index}">Help topic ${index} here</a>`).join(' ')}</footer></body></html>`,
  },
  // A store's category page: the empty root inside a mega menu of 480 words of links and a 55-word notice (90% in links).
  '/needs-js-root-in-mega-menu': {
    body: `<!doctype html><html><head><title>Fitness trackers</title></head><body><nav>${Array.from({ length: 120 }, (_, index) => `<a href="/c/${index}">Watch range ${index} here</a>`).join(' ')}</nav><div id="app"></div><p>${'Free shipping on orders over fifty dollars, returns within thirty days. '.repeat(5)}</p></body></html>`,
  },
  // The same empty root beside a short article of prose: the page's text is served, it is not a shell.
  '/ok-root-beside-prose': {
    body: `<!doctype html><html><head><title>Opening hours</title></head><body><div id="root"></div><p>${'The reading room is open from nine to five on weekdays, and from ten to two on Saturdays. '.repeat(6)}</p><footer><a href="/help">Help</a></footer></body></html>`,
  },
  '/cloudflare-header': { file: 'challenge-cloudflare', status: 403, headers: { 'cf-mitigated': 'challenge', server: 'cloudflare' } },
  '/cloudflare-markup': { file: 'challenge-cloudflare', status: 403 },
  '/datadome': { file: 'challenge-datadome', status: 403, headers: { 'x-datadome': 'protected' } },
  '/perimeterx': { file: 'challenge-perimeterx', status: 403 },
  '/akamai': { file: 'challenge-akamai', status: 403, headers: { server: 'AkamaiGHost' } },
  '/imperva': { file: 'challenge-imperva', headers: { 'x-iinfo': '5-1234-0 NNNN RT' } },
  '/aws-waf-header': { file: 'challenge-aws-waf', status: 202, headers: { 'x-amzn-waf-action': 'challenge' } },
  '/aws-waf-markup': { file: 'challenge-aws-waf', status: 405 },
  '/sucuri': { file: 'challenge-sucuri', status: 403, headers: { 'x-sucuri-id': '20006' } },
  '/hcaptcha': { file: 'challenge-hcaptcha' },
  '/recaptcha': { file: 'challenge-recaptcha', status: 429 },
  '/turnstile': { file: 'challenge-turnstile' },
  '/generic-challenge': { file: 'challenge-generic', status: 503 },
  '/generic-challenge-cloudflare': { file: 'challenge-generic', status: 503, headers: { server: 'cloudflare' } },
  '/login-wall': { file: 'login-wall' },
  '/login-phrase': { file: 'login-phrase' },
  '/paywall': { file: 'paywall' },
  '/ok-not-free-whole': {
    body: `<!doctype html><html><head><title>Whole</title><script type="application/ld+json">{"@type":"NewsArticle","isAccessibleForFree":false}</script></head><body><article>${'<p>Every paragraph of the article was served, though the site marks it as not free to read.</p>'.repeat(60)}<div class="paywall"></div></article></body></html>`,
  },
  '/ok-cloudflare-jsd': {
    body: '<!doctype html><html><head><title>Opening hours</title><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js" defer></script></head><body><p>Open nine to five, Monday to Friday.</p></body></html>',
    headers: { server: 'cloudflare' },
  },
  '/ok-ssr-404': {
    status: 404,
    body: `<!doctype html><html><head><title>404: This page could not be found</title>${'<script src="/_next/static/chunks/c.js" defer></script>'.repeat(9)}</head><body><div id="__next"><h1>404</h1><h2>This page could not be found.</h2></div></body></html>`,
  },
  '/ok-short-noscript': {
    body: '<!doctype html><html><head><title>Hours</title><script src="/a.js"></script></head><body><noscript>Please enable JavaScript for the best experience.</noscript><h1>Opening hours</h1><p>The reading room is open from nine to five on weekdays and from ten to two on Saturdays; it is closed on public holidays.</p></body></html>',
  },
  '/ok-sign-in-box': {
    body: `<!doctype html><html><head><title>Boiler pressure drops overnight</title></head><body><aside><form action="/login"><input name="user"><input type="password" name="pw"><button>Log in</button></form></aside><article><h1>Boiler pressure drops overnight</h1><p>${'Every morning the gauge reads half a bar less than the evening before, and the radiators upstairs stay cold. '.repeat(4)}</p></article></body></html>`,
  },
  '/ok-titled-security-check': {
    body: `<!doctype html><html><head><title>Security check: how airports screen bags</title></head><body><h1>Security check: how airports screen bags</h1><p>${'Each bag passes a scanner that shows dense objects in orange and metal in blue, and an officer decides in seconds. '.repeat(6)}</p></body></html>`,
  },
  '/only-buttons': { body: '<!doctype html><html><head><title>Menu</title></head><body><button>Open the menu</button><button>Close</button></body></html>' },
  '/data.json': { body: '{"name":"dsh","ok":true}', type: 'application/json' },
  '/blank.txt': { body: '  \n', type: 'text/plain' },
  // A shell's script comes first: cut at 4 KB, the part read is all script.
  '/cut-script': { body: `<!doctype html><html><head><title>Big app</title><script>${'var x = 1;'.repeat(2000)}</script></head><body><p>The text came after the script.</p></body></html>` },
  '/cut-article': { body: `<!doctype html><html><head><title>Long</title></head><body>${'<p>A long article paragraph with words that a reader came for.</p>'.repeat(200)}</body></html>` },
}

describe('page outcomes of static fetches: pages written for the tests, through the real fetcher on loopback', () => {
  let server: TestServer
  const fixtures = new Map<string, string>()
  const fetcher = createHttpFetcher({ privateHosts: ['127.0.0.1'], env: DIRECT, timeoutMs: 60_000, extractTimeoutMs: 60_000 })
  const small = createHttpFetcher({ privateHosts: ['127.0.0.1'], env: DIRECT, timeoutMs: 60_000, extractTimeoutMs: 60_000, maxBytes: 4096 })

  before(async () => {
    for (const route of Object.values(ROUTES)) {
      if (route.file && !fixtures.has(route.file)) fixtures.set(route.file, await readFile(new URL(`./fixtures/outcome/${route.file}.html`, import.meta.url), 'utf8'))
    }
    server = await startServer((request, response) => {
      const route = ROUTES[request.url ?? '']
      if (!route) {
        response.writeHead(404, { 'content-type': 'text/plain' })
        response.end('no such fixture')
        return
      }
      const body = route.file ? fixtures.get(route.file)! : route.body!
      response.writeHead(route.status ?? 200, { 'content-type': route.type ?? 'text/html; charset=utf-8', ...route.headers })
      response.end(body)
    })
  })

  after(async () => {
    await fetcher.close()
    await small.close()
    await server.close()
  })

  const get = (path: string, extra: Record<string, unknown> = {}) => fetcher.fetch({ url: `${server.origin}${path}`, ...extra }, { signal: signal() })
  const outcomeOf = async (path: string, extra: Record<string, unknown> = {}) => (await get(path, extra)).outcome!
  const NOT_RENDERED = 'not rendered: the http fetch provider reads pages as served and runs no scripts'

  describe('stays ok', () => {
    for (const [path, what] of [
      ['/ok-short', 'a page that is really short'],
      ['/ok-article-mentions', 'an article whose text mentions "enable JavaScript", "captcha", "Just a moment..." and signing in, with a <noscript> and a sign-in link'],
      ['/ok-bundles-ssr', 'a page with 8 script bundles and 60 kB of inline script in an app root full of server-rendered text'],
      ['/ok-contact-recaptcha', 'a short contact form with a reCAPTCHA widget that asks nothing of a robot'],
      ['/ok-cloudflare-jsd', "a short page of a Cloudflare site with its JavaScript Detections script (/cdn-cgi/challenge-platform/scripts/jsd/)"],
      ['/ok-ssr-404', "a framework's short server-rendered 404 page with nine script bundles (its app root holds the text)"],
      ['/ok-short-noscript', 'a short page whose text is served, with a <noscript> asking for JavaScript'],
      ['/ok-sign-in-box', 'a short forum post with a sign-in box beside it (a password field, most words outside its form)'],
      ['/ok-titled-security-check', 'a short article titled "Security check: ..."'],
      ['/ok-not-free-whole', 'an article marked isAccessibleForFree: false, with a paywall element, served whole'],
    ]) {
      it(what!, async () => {
        assert.deepEqual(await outcomeOf(path!), { kind: 'ok', readAs: 'static' })
      })
    }

    it('in every format and extraction mode (the judgement reads the page, not the converted text)', async () => {
      for (const format of ['markdown', 'text', 'html']) {
        for (const extract of ['main', 'full']) assert.equal((await outcomeOf('/ok-bundles-ssr', { format, extract })).kind, 'ok', `${format} ${extract}`)
      }
    })
  })

  describe('needs_js', () => {
    it('an empty #root with a <noscript> asking for JavaScript and a script bundle', async () => {
      assert.deepEqual(await outcomeOf('/needs-js-root'), {
        kind: 'needs_js',
        evidence: 'app root #root empty, a <noscript> asks for JavaScript, 1 script bundle, 0 words of visible text',
        readAs: 'static',
        renderNote: NOT_RENDERED,
      })
    })

    it('an empty #root beside nothing but links (a footer of 120 words): the site wrote its chrome around the app', async () => {
      const outcome = await outcomeOf('/needs-js-root-among-links')
      assert.equal(outcome.kind, 'needs_js')
      assert.equal(outcome.evidence, 'app root #root empty, 120 words of visible text, 100% of them in links')
    })

    it("an empty #app inside a mega menu of 480 words of links: a menu's size does not make it content", async () => {
      const outcome = await outcomeOf('/needs-js-root-in-mega-menu')
      assert.equal(outcome.kind, 'needs_js')
      assert.equal(outcome.evidence, 'app root #app empty, 535 words of visible text, 90% of them in links')
    })

    it('but an empty #root beside prose is a page whose text is served', async () => {
      assert.equal((await outcomeOf('/ok-root-beside-prose')).kind, 'ok')
    })

    it('no app root, only "Loading…" and four script bundles', async () => {
      const outcome = await outcomeOf('/needs-js-bundles')
      assert.equal(outcome.kind, 'needs_js')
      assert.equal(outcome.evidence, '4 script bundles, 1 word of visible text')
    })

    it('an app root holding only "Loading…", filled by a small inline script that fetches JSON (no bundle)', async () => {
      const outcome = await outcomeOf('/needs-js-placeholder-root')
      assert.equal(outcome.kind, 'needs_js')
      assert.match(outcome.evidence ?? '', /^app root #root holds only a placeholder of 1 word, and the page runs script/)
    })
  })

  it('empty: a page with no text and no script', async () => {
    assert.deepEqual(await outcomeOf('/empty'), { kind: 'empty', evidence: 'no visible text in the page', readAs: 'static', renderNote: NOT_RENDERED })
  })

  it('empty: a page whose only words are in buttons, which the conversion leaves out', async () => {
    const document = await get('/only-buttons')
    assert.equal(document.text, '')
    assert.deepEqual(document.outcome, {
      kind: 'empty',
      evidence: "the converted text is empty (4 words of visible text, all in parts the conversion leaves out, such as forms, buttons, the site's footer and its dialogs)",
      readAs: 'static',
      renderNote: NOT_RENDERED,
    })
    assert.deepEqual(document.warnings.filter((warning) => /no readable text/.test(warning)), [], 'the outcome says it, once')
  })

  describe('challenge, naming the vendor', () => {
    const cases: [path: string, vendor: string | undefined, evidence: string | RegExp][] = [
      ['/cloudflare-header', 'cloudflare', 'header cf-mitigated: challenge'],
      ['/cloudflare-markup', 'cloudflare', /^Cloudflare challenge script \(_cf_chl_opt\), \d+ words of visible text$/],
      ['/datadome', 'datadome', /^DataDome captcha \(captcha-delivery\.com\), \d+ words/],
      ['/perimeterx', 'perimeterx', /^PerimeterX captcha \(px-captcha\), \d+ words/],
      ['/akamai', 'akamai', /^Akamai "Access Denied" reference number, \d+ words/],
      ['/imperva', 'imperva', /^Imperva resource \(_Incapsula_Resource\), \d+ words/],
      ['/aws-waf-header', 'aws-waf', 'header x-amzn-waf-action: challenge'],
      ['/aws-waf-markup', 'aws-waf', /^AWS WAF challenge script, \d+ words/],
      ['/sucuri', 'sucuri', /^Sucuri firewall block page, \d+ words/],
      ['/hcaptcha', 'hcaptcha', /^hCaptcha widget on a page that asks to prove a human, \d+ words/],
      ['/recaptcha', 'recaptcha', /^reCAPTCHA widget on a page that asks to prove a human, \d+ words/],
      ['/turnstile', 'turnstile', /^a bot-check title, Turnstile widget, \d+ words/],
      ['/generic-challenge', undefined, /^a bot-check title, \d+ words/],
      ['/generic-challenge-cloudflare', 'cloudflare', /^a bot-check title, \d+ words/],
    ]
    for (const [path, vendor, evidence] of cases) {
      it(`${path.slice(1)}: ${vendor ?? 'no vendor named'}`, async () => {
        const document = await get(path)
        const outcome = document.outcome!
        assert.equal(outcome.kind, 'challenge', JSON.stringify(outcome))
        assert.equal(outcome.vendor, vendor)
        if (typeof evidence === 'string') assert.equal(outcome.evidence, evidence)
        else assert.match(outcome.evidence!, evidence)
        assert.equal(outcome.readAs, 'static')
        assert.equal(outcome.renderNote, NOT_RENDERED)
      })
    }
  })

  describe('walls', () => {
    it('login_wall: a sign-in form with a password field and little else', async () => {
      assert.deepEqual(await outcomeOf('/login-wall'), { kind: 'login_wall', evidence: 'a password field, 14 words of visible text', readAs: 'static', renderNote: NOT_RENDERED })
    })

    it('login_wall: "You must be logged in to view this page", no form', async () => {
      const outcome = await outcomeOf('/login-phrase')
      assert.equal(outcome.kind, 'login_wall')
      assert.match(outcome.evidence!, /^asks to sign in, \d+ words of visible text$/)
    })

    it('paywall: a teaser, JSON-LD isAccessibleForFree false and a paywall element', async () => {
      const outcome = await outcomeOf('/paywall')
      assert.equal(outcome.kind, 'paywall')
      assert.match(outcome.evidence!, /^schema\.org isAccessibleForFree: false, a paywall element, \d+ words of visible text$/)
    })
  })

  describe('documents that are not HTML', () => {
    it('JSON with content is ok', async () => {
      assert.deepEqual(await outcomeOf('/data.json'), { kind: 'ok', readAs: 'static' })
    })

    it('a text document of white space is empty', async () => {
      assert.deepEqual(await outcomeOf('/blank.txt'), { kind: 'empty', evidence: 'the text document has no text', readAs: 'static' })
    })
  })

  describe('a body cut at the byte limit (allowPartial)', () => {
    it('is partial when the part read is only script: the text may be in the rest', async () => {
      const document = await small.fetch({ url: `${server.origin}/cut-script`, allowPartial: true }, { signal: signal() })
      assert.ok(document.truncated)
      assert.equal(document.outcome!.kind, 'partial')
      assert.match(document.outcome!.evidence!, /^the body was cut at the byte limit; the part read looks like a shell \(/)
    })

    it('stays ok when the part read has its text: the cut is said by truncated and truncatedReason', async () => {
      const document = await small.fetch({ url: `${server.origin}/cut-article`, allowPartial: true }, { signal: signal() })
      assert.ok(document.truncated)
      assert.deepEqual(document.outcome, { kind: 'ok', readAs: 'static' })
    })
  })

  it('a cached document keeps its outcome: the hit says what the fetch that made it said', async () => {
    const first = await get('/perimeterx', { format: 'text' })
    const second = await get('/perimeterx', { format: 'text', offset: 10 })
    assert.equal(first.provenance.cacheHit, false)
    assert.equal(second.provenance.cacheHit, true)
    assert.deepEqual(second.outcome, first.outcome)
    assert.equal(second.outcome!.kind, 'challenge')
  })
})

describe('readPageSignals', () => {
  it('is bounded: a page of 400,000 empty elements stops at the walk\'s step limit', () => {
    const html = `<!doctype html><html><body>${'<p></p>'.repeat(400_000)}</body></html>`
    const document = htmlParser.parse(html, 'https://site.example/')
    const before = workDone.walkSteps
    const signals = readPageSignals(document, html)
    assert.equal(signals.walkCut, true)
    assert.ok(workDone.walkSteps - before < 500_000, `walked ${workDone.walkSteps - before} steps`)
  })

  it('stops at WORD_CAP words: a long article costs a few hundred steps, and its source is not scanned', () => {
    const html = `<!doctype html><html><body>${'<p>word</p>'.repeat(400_000)}<div id="px-captcha"></div></body></html>`
    const document = htmlParser.parse(html, 'https://site.example/')
    const before = workDone.walkSteps
    const signals = readPageSignals(document, html)
    assert.equal(signals.visibleWords, WORD_CAP)
    assert.equal(signals.walkCut, false)
    assert.ok(workDone.walkSteps - before < 5 * WORD_CAP, `walked ${workDone.walkSteps - before} steps`)
    assert.deepEqual(signals.markers, [], 'markers are looked for only on short pages')
  })

  it('reads without changing the tree: the page serializes the same before and after', () => {
    const html = '<!doctype html><html><head><script type="application/ld+json">{"isAccessibleForFree": false}</script></head><body><div id="root"></div><noscript>Enable JavaScript</noscript><input type="password"></body></html>'
    const document = htmlParser.parse(html, 'https://site.example/')
    const serialized = (document as unknown as { toString(): string }).toString()
    const signals = readPageSignals(document, html)
    assert.equal((document as unknown as { toString(): string }).toString(), serialized)
    assert.equal(signals.notFree, true)
    assert.equal(signals.passwordInputs, 1)
    assert.equal(signals.noscriptAsksForJs, true)
    assert.deepEqual(signals.appRoot, { selector: '#root', words: 0 })
  })
})
