/**
 * The marks bot walls leave, by vendor: what page-outcome.ts reads to say a
 * page is a `challenge` and whose. Sources (checked before relying on them):
 * - Cloudflare: "Detect a Challenge Page response" (developers.cloudflare.com/
 *   cloudflare-challenges/challenge-types/challenge-pages/detect-response):
 *   every challenge page has `cf-mitigated: challenge`, the only value.
 *   Challenge markup (`window._cf_chl_opt`, `__cf_chl_*` tokens, the
 *   `/cdn-cgi/challenge-platform/.../orchestrate/` script, the
 *   "Just a moment..." title) as FlareSolverr's src/providers/cloudflare.ts
 *   and scaredos/cfresearch describe it; only the orchestrate path is a
 *   challenge's: Cloudflare's "JavaScript Detections" (developers.cloudflare.com/
 *   bots/reference/javascript-detections) put a script under
 *   `/cdn-cgi/challenge-platform/` on ordinary pages too. Its block page is
 *   `cf-error-details` with "Sorry, you have been blocked".
 * - AWS WAF: "CAPTCHA and Challenge action behavior" (docs.aws.amazon.com/
 *   waf/latest/developerguide/waf-captcha-and-challenge-actions.html):
 *   `x-amzn-waf-action: challenge` (status 202) or `captcha` (405).
 * - DataDome: its captcha and interstitial load from `geo.captcha-delivery.com`
 *   (also `ct.` and `interstitial.`), as its solvers' docs show (docs.capsolver.com, DataDome).
 * - PerimeterX / HUMAN: its block page has `<div id="px-captcha">` and sets
 *   `window._pxAppId`, loading `captcha.px-cdn.net` (PerimeterX's enforcer docs, custom block page).
 * - Akamai: the "Access Denied" page of its edge (server `AkamaiGHost`,
 *   "Reference #18.xxxxxxxx.1xxxxxxxxx.xxxxxxx", errors.edgesuite.net; the
 *   pattern identYwaf/sqlmap's WAF table uses), and Bot Manager's
 *   `/_sec/cp_challenge/` interstitial.
 * - Imperva / Incapsula: `/_Incapsula_Resource` and "Incapsula incident ID"
 *   on its block and challenge pages; `x-iinfo` and `x-cdn: Incapsula` headers.
 * - Sucuri: "Sucuri WebSite Firewall - Access Denied", cloudproxy@sucuri.net
 *   (the firewall's block page; Zeus-Scanner's lib/firewall/sucuri.py checks the same).
 * - hCaptcha, reCAPTCHA, Turnstile: their widgets (`h-captcha`, `g-recaptcha`,
 *   `cf-turnstile` elements and their api.js) are on ordinary forms too, so
 *   they make a `challenge` only on a short page that asks to prove a human.
 *
 * Markers are searched only in the source of pages with few words (page-signals.ts).
 */

export type WallVendor = 'cloudflare' | 'datadome' | 'perimeterx' | 'akamai' | 'imperva' | 'aws-waf' | 'sucuri'
export type CaptchaVendor = 'hcaptcha' | 'recaptcha' | 'turnstile'

export interface SourceMarker {
  /** What the evidence says was seen: fixed text of ours, never the page's. */
  name: string
  vendor: WallVendor | CaptchaVendor
  /** A captcha widget alone does not make a wall (see above). */
  widget: boolean
  pattern: RegExp
}

export const SOURCE_MARKERS: readonly SourceMarker[] = [
  { name: 'Cloudflare challenge script (_cf_chl_opt)', vendor: 'cloudflare', widget: false, pattern: /_cf_chl_opt\b/ },
  { name: 'Cloudflare challenge token (__cf_chl_)', vendor: 'cloudflare', widget: false, pattern: /__cf_chl_\w/ },
  { name: 'Cloudflare challenge platform', vendor: 'cloudflare', widget: false, pattern: /\/cdn-cgi\/challenge-platform\/(?:h\/[a-z]\/)?orchestrate\// },
  { name: 'Cloudflare block page', vendor: 'cloudflare', widget: false, pattern: /id=["']?cf-error-details[\s\S]{0,4000}?you have been blocked/i },
  { name: 'DataDome captcha (captcha-delivery.com)', vendor: 'datadome', widget: false, pattern: /\b(?:geo|ct|interstitial)\.captcha-delivery\.com\b/i },
  { name: 'PerimeterX captcha (px-captcha)', vendor: 'perimeterx', widget: false, pattern: /\bid=["']?px-captcha\b/i },
  { name: 'PerimeterX block page (_pxAppId)', vendor: 'perimeterx', widget: false, pattern: /\b_pxAppId\b|\bcaptcha\.px-cdn\.net\b/ },
  { name: 'Akamai error reference (errors.edgesuite.net)', vendor: 'akamai', widget: false, pattern: /\berrors\.edgesuite\.net\b/i },
  { name: 'Akamai Bot Manager challenge (/_sec/cp_challenge/)', vendor: 'akamai', widget: false, pattern: /\/_sec\/cp_challenge\//i },
  { name: 'Imperva resource (_Incapsula_Resource)', vendor: 'imperva', widget: false, pattern: /_Incapsula_Resource\b/i },
  { name: 'Imperva incident ID', vendor: 'imperva', widget: false, pattern: /Incapsula incident ID/i },
  { name: 'AWS WAF challenge script', vendor: 'aws-waf', widget: false, pattern: /\bAwsWafIntegration\b|\.awswaf\.com\b/ },
  { name: 'Sucuri firewall block page', vendor: 'sucuri', widget: false, pattern: /Sucuri WebSite Firewall|cloudproxy@sucuri\.net/i },
  { name: 'hCaptcha widget', vendor: 'hcaptcha', widget: true, pattern: /\bclass=["'][^"']*\bh-captcha\b|\bhcaptcha\.com\/1\/api\.js/i },
  { name: 'reCAPTCHA widget', vendor: 'recaptcha', widget: true, pattern: /\bclass=["'][^"']*\bg-recaptcha\b|\/recaptcha\/(?:api|enterprise)\.js/i },
  { name: 'Turnstile widget', vendor: 'turnstile', widget: true, pattern: /\bclass=["'][^"']*\bcf-turnstile\b|\bchallenges\.cloudflare\.com\/turnstile\//i },
]

/** A response header that says the response is a challenge, whatever the page holds. */
export interface ChallengeHeader {
  header: string
  values: readonly string[]
  vendor: WallVendor
}

export const CHALLENGE_HEADERS: readonly ChallengeHeader[] = [
  { header: 'cf-mitigated', values: ['challenge'], vendor: 'cloudflare' },
  { header: 'x-amzn-waf-action', values: ['challenge', 'captcha'], vendor: 'aws-waf' },
]

/** Headers that only name whose edge answered (a page judged a wall by what it shows gets this vendor). */
export function vendorOfHeaders(headers: Readonly<Record<string, string | undefined>>): WallVendor | undefined {
  const server = (headers.server ?? '').toLowerCase()
  if (server.startsWith('cloudflare')) return 'cloudflare'
  if (server.includes('akamaighost')) return 'akamai'
  if (headers['x-iinfo'] !== undefined || /incapsula/i.test(headers['x-cdn'] ?? '')) return 'imperva'
  if (headers['x-sucuri-id'] !== undefined || server.startsWith('sucuri')) return 'sucuri'
  if (headers['x-datadome'] !== undefined) return 'datadome'
  return undefined
}

/** The response headers the judgement reads; nothing else of the response goes into it. */
export const OUTCOME_HEADERS = ['cf-mitigated', 'x-amzn-waf-action', 'server', 'x-iinfo', 'x-cdn', 'x-sucuri-id', 'x-datadome'] as const
