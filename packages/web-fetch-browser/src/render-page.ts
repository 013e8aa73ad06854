import type { Browser, HTTPRequest, HTTPResponse, Page } from 'puppeteer-core'
import { within } from 'dsh-host'
import type { RedirectHop } from 'dsh-web'
import { WebError, redactUrl } from 'dsh-web'
import type { BrowserEnd } from './chromium-process.js'
import type { VettingProxy } from './vetting-proxy.js'

export interface RenderOptions {
  url: URL
  /** The page's own vetting proxy. */
  proxy: VettingProxy
  /** When the whole render must be done (epoch ms): navigation, settling and reading the DOM. */
  deadline: number
  /** Quiet time with no request in flight after which the page counts as settled. */
  settleMs: number
  userAgent?: string
  /** Why the browser ended, if it did (its memory cap, a crash, the provider's end). */
  browserEnded: () => BrowserEnd | undefined
}

/** The browser could not open a context for the page: it is gone (died, or killed from outside) before the page started. */
export class BrowserGone extends Error {
  override readonly name = 'BrowserGone'
}

export interface RenderedPage {
  html: string
  finalUrl: string
  status: number
  contentType?: string
  redirects: RedirectHop[]
  /** Why the page is incomplete: it did not finish loading or settle by the deadline. */
  partial?: string
}

/** Schemes a page may load from besides the network: what never leaves the renderer. */
const LOCAL_SCHEMES = new Set(['data:', 'blob:', 'about:'])

/**
 * Service worker registration refused in every frame before its scripts
 * run: a fresh context keeps none anyway, and a worker would outlive the
 * page's own requests. The worker script's request is aborted as well
 * (below), should a page reach the original function. A string, not a
 * function: the page gets exactly this source, whatever the compiler does
 * to functions.
 */
const BLOCK_SERVICE_WORKERS = `(() => {
  if (typeof ServiceWorkerContainer === 'undefined') return
  const refuse = () => Promise.reject(new DOMException('Service workers are disabled here.', 'SecurityError'))
  Object.defineProperty(ServiceWorkerContainer.prototype, 'register', { value: refuse, configurable: false, writable: false })
})()`

/**
 * Defence in depth only (the vetting proxy is what holds): the driver sees
 * each request of the page, redirect hops included in puppeteer-core, and
 * aborts those that are not http(s), and service worker scripts.
 */
function interceptRequests(page: Page, refuse: (url: string, reason: string) => void) {
  page.on('request', (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return
    const url = request.url()
    let protocol = ''
    try {
      protocol = new URL(url).protocol
    } catch {}
    if (LOCAL_SCHEMES.has(protocol)) return void request.continue().catch(() => {})
    if (protocol !== 'http:' && protocol !== 'https:' && protocol !== 'ws:' && protocol !== 'wss:') {
      refuse(url.slice(0, 200), `the scheme ${protocol || '(none)'} is not fetched`)
      return void request.abort('blockedbyclient').catch(() => {})
    }
    if (request.headers()['service-worker'] === 'script') {
      refuse(redactUrl(url), 'service worker scripts are not loaded')
      return void request.abort('blockedbyclient').catch(() => {})
    }
    void request.continue().catch(() => {})
  })
}

/** The serialised DOM; asked once more when a late navigation (a script's, or the first document committing) replaced the document being read. */
async function readDom(page: Page): Promise<string> {
  try {
    return await page.content()
  } catch (error) {
    if (!/Execution context was destroyed|Cannot find context/.test((error as Error)?.message ?? '')) throw error
    return await page.content()
  }
}

/** The refusal the proxy recorded for the page's own URL (its first hop, or one a redirect led to), as an error to throw. */
function refusalOf(proxy: VettingProxy, target: URL): WebError | undefined {
  const shown = redactUrl(target)
  const tunnel = `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`
  const record = proxy.refused.first.find((entry) => entry.url === shown || entry.url === tunnel)
  if (!record) return undefined
  return new WebError(record.code, `The page ${shown} was not loaded: ${record.reason}`, { details: { url: shown } })
}

function redirectsOf(response: HTTPResponse | null): RedirectHop[] {
  if (!response) return []
  return response
    .request()
    .redirectChain()
    .map((request) => {
      const hop = request.response()
      return { url: request.url(), status: hop?.status() ?? 0, ...(hop?.headers().location ? { location: hop.headers().location } : {}) }
    })
}

/**
 * One page in a fresh browser context: its own proxy, downloads denied, no
 * permission granted, service workers refused. It is loaded until `load`,
 * then until no request has been open for `settleMs`, within the deadline;
 * a page that gets neither far is read as it stands, marked partial.
 */
export async function renderPage(browser: Browser, options: RenderOptions): Promise<RenderedPage> {
  const remaining = () => options.deadline - Date.now()
  let context
  try {
    context = await browser.createBrowserContext({ proxyServer: options.proxy.url, proxyBypassList: ['<-loopback>'], downloadBehavior: { policy: 'deny' } })
  } catch (error) {
    throw new BrowserGone((error as Error)?.message ?? String(error), { cause: error })
  }
  let crashed: string | undefined
  try {
    await context.overridePermissions(options.url.origin, [])
    const page = await context.newPage()
    page.on('error', (error) => (crashed = error.message))
    // A top-level answer that is a download is never saved (downloads are denied): the call says what it was.
    let download: string | undefined
    page.on('response', (answer: HTTPResponse) => {
      if (answer.request().isNavigationRequest() && answer.frame() === page.mainFrame() && /^\s*attachment/i.test(answer.headers()['content-disposition'] ?? '')) download = redactUrl(answer.url())
    })
    await page.evaluateOnNewDocument(BLOCK_SERVICE_WORKERS)
    await page.setRequestInterception(true)
    interceptRequests(page, (url, reason) => options.proxy.record(url, new WebError('WEB_BLOCKED_URL', `Not loaded by the browser: ${reason}.`)))
    // The page's proxy takes only this context's credentials (another process could connect to its port).
    await page.authenticate(options.proxy.credentials)
    if (options.userAgent) await page.setUserAgent(options.userAgent)
    let partial: string | undefined
    let response: HTTPResponse | null = null
    try {
      response = await page.goto(options.url.href, { waitUntil: 'load', timeout: Math.max(1, remaining()) })
    } catch (error) {
      if ((error as Error)?.name !== 'TimeoutError') {
        if (download) throw new WebError('WEB_UNSUPPORTED_CONTENT_TYPE', `${download} is a download (Content-Disposition: attachment), not a page; the browser provider saves no files (the http fetch provider reads documents).`, { cause: error, details: { url: download } })
        throw refusalOf(options.proxy, options.url) ?? failure(error, options, crashed)
      }
      partial = `the page had not finished loading when its deadline came`
    }
    if (!partial) {
      try {
        await page.waitForNetworkIdle({ idleTime: options.settleMs, timeout: Math.max(1, remaining()) })
      } catch (error) {
        if ((error as Error)?.name !== 'TimeoutError') throw failure(error, options, crashed)
        partial = `the page was still loading (requests open) when its deadline came`
      }
    }
    if (response?.headers()['x-dsh-web-refused']) throw refusalOf(options.proxy, new URL(response.url())) ?? new WebError('WEB_BLOCKED_ADDRESS', `The page ${redactUrl(response.url())} was refused by the vetting proxy.`)
    // A page read at its deadline is stopped first (what is still loading is cancelled), so that its document stays the one read.
    if (partial) await within(page.evaluate('window.stop()'), 1000, () => new Error('stop timed out')).catch(() => {})
    // Reading the DOM gets a little time past the deadline: a page whose scripts hold the renderer busy ends here instead.
    const html = await within(readDom(page), Math.max(remaining(), 0) + 2000, () => new WebError('WEB_TIMEOUT', `The page ${redactUrl(options.url)} kept the browser busy past its deadline; its DOM could not be read.`))
    const finalUrl = page.url()
    if (finalUrl !== options.url.href) {
      const refused = refusalOf(options.proxy, new URL(finalUrl))
      if (refused) throw refused
    }
    const headers = response?.headers() ?? {}
    return {
      html,
      finalUrl,
      status: response?.status() ?? 200,
      ...(headers['content-type'] ? { contentType: headers['content-type'].split(';')[0]!.trim().toLowerCase() } : {}),
      redirects: redirectsOf(response),
      ...(partial ? { partial } : {}),
    }
  } catch (error) {
    throw WebError.is(error) ? error : failure(error, options, crashed)
  } finally {
    await within(context.close(), 5000, () => new Error('context close timed out')).catch(() => {})
  }
}

/** A driver failure as a WebError: the browser killed for its memory, the renderer crashed, or the page failed to load. */
function failure(error: unknown, options: RenderOptions, crashed: string | undefined): WebError {
  if (WebError.is(error)) return error
  const shown = redactUrl(options.url)
  const ended = options.browserEnded()
  if (ended) return new WebError(ended.overMemory ? 'WEB_DOCUMENT_TOO_COMPLEX' : 'WEB_FETCH_FAILED', `Rendering ${shown} was stopped: ${ended.reason}.${ended.restarts ? ' The browser is started again for the next call.' : ''}`, { cause: error, details: { url: shown } })
  if (crashed) return new WebError('WEB_DOCUMENT_TOO_COMPLEX', `Rendering ${shown} was stopped: the page's renderer crashed (${crashed}), most often from running out of its memory.`, { cause: error, details: { url: shown } })
  const message = (error as Error)?.message ?? String(error)
  return new WebError('WEB_FETCH_FAILED', `Rendering ${shown} failed: ${message.split('\n')[0]}`, { cause: error, details: { url: shown } })
}
