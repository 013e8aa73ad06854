import type { PageOutcome } from 'dsh-web'
import { CHALLENGE_HEADERS, type OUTCOME_HEADERS, SOURCE_MARKERS, vendorOfHeaders } from './challenge-vendors.js'
import type { ContentKind } from '../convert/decode-body.js'
import { type PageSignals, SHORT_PAGE_WORDS, WORD_CAP } from './page-signals.js'

/** What a static fetch knows of a document when it judges it: no more (pure, and cheap: the page was walked once in the worker). */
export interface JudgeInput {
  kind: ContentKind
  /** Of HTML pages (page-signals.ts, read in the extraction worker). */
  signals?: PageSignals
  /** The converted text: whether it is empty. */
  text: string
  status: number
  /** Only OUTCOME_HEADERS, lower-case names. */
  headers: Readonly<Partial<Record<(typeof OUTCOME_HEADERS)[number], string>>>
  /** The body was cut at the byte limit (allowPartial). */
  bodyCut: boolean
}

/** A page with fewer visible words than these is short enough to be a shell, a wall's form, or a teaser. */
const SHELL_MAX_WORDS = 50
const NOSCRIPT_MAX_WORDS = 20
const BUNDLES_MAX_WORDS = 10
/**
 * An empty app root beside fewer words than the walk counts (WORD_CAP),
 * nearly all of them in links (LINK_SHARE_OF_SHELL), is a shell too: the
 * server wrote the site's menus and footer around the app, and the page's
 * own content is the app's (a store's product page served as its footer's
 * 150 words of links; a category page inside a mega menu of 500). Was 300:
 * WCXB's one page between 300 and 600 words with an empty root and 80% in
 * links is such a category page (556 words, 88%), and no page of either
 * benchmark with an empty root and text of its own comes near that share.
 */
const LINKS_SHELL_MAX_WORDS = WORD_CAP
const LINK_SHARE_OF_SHELL = 0.8
/** An app root with this many words holds what its server rendered. */
const ROOT_TEXT_WORDS = 5
/** Words of an app root's placeholder ("Loading…"), and of the whole page around it, at most. */
const PLACEHOLDER_MAX_WORDS = 2
const LOGIN_MAX_WORDS = 250
/** Words outside the sign-in form at most: more, and the page has content beside a sign-in box. */
const LOGIN_OUTSIDE_MAX_WORDS = 40
const LOGIN_PHRASE_MAX_WORDS = 100
/** A bot-check title without a vendor's mark counts only on a page this short (an article may be titled "Security check"). */
const TITLE_MAX_WORDS = 100
/** The most words any rule reads: the page's walk stops there (page-signals.ts). */
const TEASER_MAX_WORDS = WORD_CAP
const WIDGET_MAX_WORDS = 80
/** Script that would write a page: this many bundles, or this much inline script. */
const MANY_BUNDLES = 3
const MUCH_INLINE_SCRIPT = 50_000
const SOME_INLINE_SCRIPT = 1000

/** Titles and headings of bot walls whose vendor the page does not say. */
const BOT_WALL_TITLE = /^(?:just a moment\b|attention required\b|checking (?:your|if the site connection is secure)\b|verify(?:ing)? (?:that )?you are (?:a )?human\b|are you a (?:robot|human)\b|(?:browser |bot |human )?verification (?:required|check)\b|security check\b|one more step\b|ddos protection by\b|access to this page has been denied\b|please verify you are a human\b|pardon our interruption\b)/i
/** Words a captcha interstitial says (a widget on a contact form does not). */
const PROVE_HUMAN = /\b(?:verify (?:that )?you(?:'re| are) (?:a )?human|(?:not|are you) a robot|unusual traffic|security check|checking your browser|confirm you are (?:a )?human|press (?:&|and) hold)\b/i
/** Akamai's edge: "Access Denied ... Reference #18.2f5e3b17.1700000000.1a2b3c4d" (identYwaf's pattern). */
const AKAMAI_REFERENCE = /\bReference\s*#\s*\d+\.[0-9a-f]{6,}\.\d{9,}\.[0-9a-f]{6,}\b/i
const SIGN_IN_PHRASE = /\b(?:sign|log)\s*-?\s*in\b[^.!?]{0,30}\b(?:to (?:continue|view|read|access|see)|required)\b|\byou (?:must|need to|have to) (?:be )?(?:signed|logged) in\b|\bplease (?:sign|log)\s*-?\s*in\b|\blogin required\b/i

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
/** "12 words of visible text", "1000+ words..." past the count's cap. */
const wordsSeen = (signals: PageSignals) => `${signals.visibleWords >= WORD_CAP ? `${WORD_CAP}+` : signals.visibleWords} word${signals.visibleWords === 1 ? '' : 's'} of visible text`

/**
 * What a statically read document was (`readAs: 'static'`), from its
 * headers and what readPageSignals found, in this order: a challenge (a
 * challenge header; a wall vendor's markup, or a bot-wall title, on a short
 * page; a captcha widget on a short page that asks to prove a human), a
 * login wall, a paywall, a script-written shell (`needs_js`), no text
 * (`empty`), else `ok`. Every rule but the headers needs a short page, so
 * that an article that mentions JavaScript, captchas or bot walls, or one
 * with big bundles and its text served, stays `ok`. A body cut at the byte
 * limit whose part read looks like a shell or holds no text is `partial`:
 * the text may be in the part not read. `evidence` is our own words and
 * numbers, never the page's text.
 */
export function judgePage(input: JudgeInput): PageOutcome {
  if (input.kind !== 'html' || !input.signals) {
    if (input.text.trim()) return { kind: 'ok', readAs: 'static' }
    return cutOr({ kind: 'empty', evidence: `the ${documentName(input.kind)} has no text`, readAs: 'static' }, input)
  }
  const signals = input.signals
  const challenge = judgeChallenge(input, signals)
  if (challenge) return challenge
  if (signals.passwordInputs > 0 && signals.visibleWords < LOGIN_MAX_WORDS && signals.visibleWords - signals.passwordFormWords < LOGIN_OUTSIDE_MAX_WORDS) {
    return { kind: 'login_wall', evidence: `a password field, ${wordsSeen(signals)}`, readAs: 'static' }
  }
  if (signals.visibleWords < LOGIN_PHRASE_MAX_WORDS && (SIGN_IN_PHRASE.test(signals.headings) || SIGN_IN_PHRASE.test(signals.sample))) {
    return { kind: 'login_wall', evidence: `asks to sign in, ${wordsSeen(signals)}`, readAs: 'static' }
  }
  // Sites that mark an article not free often serve it whole (to search engines, or hidden by a script):
  // only a short page is a teaser (on the shared benchmark, five such articles of 700 to 1000+ words stay ok).
  if (signals.notFree && signals.visibleWords < TEASER_MAX_WORDS) {
    const parts = ['schema.org isAccessibleForFree: false', ...(signals.paywallElement ? ['a paywall element'] : []), wordsSeen(signals)]
    return { kind: 'paywall', evidence: parts.join(', '), readAs: 'static' }
  }
  const shell = judgeShell(signals)
  if (shell) return cutOr(shell, input)
  if (signals.visibleWords === 0) return cutOr({ kind: 'empty', evidence: 'no visible text in the page', readAs: 'static' }, input)
  // Text only in what the conversion leaves out (a form's labels, buttons, the site's footer, dialogs): nothing is left to read.
  if (!input.text.trim()) return cutOr({ kind: 'empty', evidence: `the converted text is empty (${wordsSeen(signals)}, all in parts the conversion leaves out, such as forms, buttons, the site's footer and its dialogs)`, readAs: 'static' }, input)
  return { kind: 'ok', readAs: 'static' }
}

function judgeChallenge(input: JudgeInput, signals: PageSignals): PageOutcome | undefined {
  for (const rule of CHALLENGE_HEADERS) {
    const value = input.headers[rule.header as keyof JudgeInput['headers']]?.trim().toLowerCase()
    if (value && rule.values.includes(value)) return { kind: 'challenge', vendor: rule.vendor, evidence: `header ${rule.header}: ${value}`, readAs: 'static' }
  }
  if (signals.visibleWords >= SHORT_PAGE_WORDS) return undefined
  const found = SOURCE_MARKERS.filter((marker) => signals.markers.includes(marker.name))
  const wall = found.find((marker) => !marker.widget)
  if (wall) return { kind: 'challenge', vendor: wall.vendor, evidence: `${wall.name}, ${wordsSeen(signals)}`, readAs: 'static' }
  if (AKAMAI_REFERENCE.test(signals.sample)) return { kind: 'challenge', vendor: 'akamai', evidence: `Akamai "Access Denied" reference number, ${wordsSeen(signals)}`, readAs: 'static' }
  const widget = found.find((marker) => marker.widget)
  const title = signals.headings.split(' | ').some((part) => BOT_WALL_TITLE.test(part.trim()))
  if (title && signals.visibleWords < TITLE_MAX_WORDS) {
    const vendor = vendorOfHeaders(input.headers) ?? widget?.vendor
    return { kind: 'challenge', ...(vendor ? { vendor } : {}), evidence: `a bot-check title${widget ? `, ${widget.name}` : ''}, ${wordsSeen(signals)}`, readAs: 'static' }
  }
  const provesHuman = PROVE_HUMAN.test(signals.sample) || PROVE_HUMAN.test(signals.headings)
  if (widget && signals.visibleWords < WIDGET_MAX_WORDS && (provesHuman || input.status < 200 || input.status > 299)) {
    return { kind: 'challenge', vendor: widget.vendor, evidence: `${widget.name} on a page that asks to prove a human, ${wordsSeen(signals)}`, readAs: 'static' }
  }
  return undefined
}

/**
 * A shell: the stronger the sign, the more words it may have around it. An
 * empty app root is strong; a `<noscript>` asking for JavaScript is common on
 * pages whose text is served too; script bundles alone are on every modern
 * page, so they count only where there is next to no text, and not when the
 * app root holds text its server wrote (a short server-rendered page such as
 * a framework's 404).
 */
function judgeShell(signals: PageSignals): PageOutcome | undefined {
  const words = signals.visibleWords
  const emptyRoot = signals.appRoot !== undefined && signals.appRoot.words === 0
  const rootAmongLinks = emptyRoot && words < LINKS_SHELL_MAX_WORDS && signals.linkWords >= LINK_SHARE_OF_SHELL * words
  if (words >= SHELL_MAX_WORDS && !rootAmongLinks) return undefined
  const rootWithText = signals.appRoot !== undefined && signals.appRoot.words >= ROOT_TEXT_WORDS
  const scripts = signals.scriptBundles >= MANY_BUNDLES || signals.inlineScriptChars >= MUCH_INLINE_SCRIPT
  const someScript = signals.scriptBundles > 0 || signals.inlineScriptChars >= SOME_INLINE_SCRIPT
  const noscript = signals.noscriptAsksForJs && words < NOSCRIPT_MAX_WORDS
  // An app root holding only a placeholder ("Loading…") on a page of a few words, with any script at all: the script fills it.
  const placeholderRoot =
    signals.appRoot !== undefined && signals.appRoot.words > 0 && signals.appRoot.words <= PLACEHOLDER_MAX_WORDS && words <= PLACEHOLDER_MAX_WORDS && (signals.scriptBundles > 0 || signals.inlineScriptChars > 0)
  if (!emptyRoot && !placeholderRoot && !noscript && !(scripts && words < BUNDLES_MAX_WORDS && !rootWithText) && !(words === 0 && someScript)) return undefined
  const seen: string[] = []
  if (emptyRoot) seen.push(`app root ${signals.appRoot!.selector} empty`)
  if (placeholderRoot) seen.push(`app root ${signals.appRoot!.selector} holds only a placeholder of ${plural(signals.appRoot!.words, 'word')}, and the page runs script`)
  if (signals.noscriptAsksForJs) seen.push('a <noscript> asks for JavaScript')
  if (signals.scriptBundles) seen.push(plural(signals.scriptBundles, 'script bundle'))
  if (signals.inlineScriptChars >= SOME_INLINE_SCRIPT) seen.push(`${Math.round(signals.inlineScriptChars / 1000)} kB of inline script`)
  seen.push(wordsSeen(signals))
  if (rootAmongLinks && words >= SHELL_MAX_WORDS) seen.push(`${Math.round((100 * signals.linkWords) / words)}% of them in links`)
  return { kind: 'needs_js', evidence: seen.join(', '), readAs: 'static' }
}

/** A body cut short whose part read has no text or only a shell: the text may be in the part not read. */
function cutOr(outcome: PageOutcome, input: JudgeInput): PageOutcome {
  if (!input.bodyCut) return outcome
  return { kind: 'partial', evidence: `the body was cut at the byte limit; the part read ${outcome.kind === 'empty' ? 'has no text' : `looks like a shell (${outcome.evidence})`}`, readAs: 'static' }
}

function documentName(kind: ContentKind): string {
  switch (kind) {
    case 'json':
      return 'JSON document'
    case 'xml':
      return 'XML document'
    case 'pdf':
      return 'PDF'
    case 'text':
      return 'text document'
    case 'html':
      return 'page'
  }
}
