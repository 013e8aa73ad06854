import { type FetchedDocument, WebError } from 'dsh-web'
import { originOf, type SeenUrls, type SeenUrlSource, type ToolCallContext, urlsInText } from 'dsh-host'
import { isWithheld } from './render-fetch.js'
import type { WebSearchOutput } from './search-output.js'

/**
 * What web_fetch does with a URL the session has not seen: `off` fetches it,
 * `warn` fetches it and records it (log only), `enforce` refuses it.
 */
export type ProvenanceMode = 'off' | 'warn' | 'enforce'

export interface ProvenanceSettings {
  provenance: ProvenanceMode
  /** Any URL of an origin the session has seen passes (weaker: a query or path on a seen site is the model's own). */
  provenanceSameOrigin: boolean
}

/** The log-only event of a URL the gate did not find in the session: its origin only, never its path or query. */
export const URL_NOT_SEEN_EVENT = 'tool/url-not-seen'
/** The log-only event, once per session, of its seen-URL set dropping its oldest URLs. */
export const SEEN_URLS_DROPPED_EVENT = 'tool/seen-urls-dropped'

/**
 * The gate every web_fetch passes, the model's own and run_code's alike
 * (both reach this tool's handler): the URL must be one the session has
 * seen (`SeenUrls`), else `warn` records it and `enforce` refuses it with
 * WEB_URL_NOT_IN_CONTEXT, before any request.
 */
export async function checkProvenance(settings: ProvenanceSettings, url: string, call: ToolCallContext): Promise<void> {
  const mode = settings.provenance
  if (mode === 'off') return
  const seen = call.session?.seenUrls
  if (seen?.admits(url, { sameOrigin: settings.provenanceSameOrigin })) return
  const origin = originOf(url)
  await call.session?.append(URL_NOT_SEEN_EVENT, { callId: call.callId, tool: 'web_fetch', origin, mode, action: mode === 'enforce' ? 'refused' : 'fetched', ...(seen ? {} : { reason: 'no seen-URL set' }) }, { visibility: 'log' })
  if (mode === 'warn') return
  if (!seen) {
    throw new WebError('WEB_URL_NOT_IN_CONTEXT', `web_fetch refused a URL of ${origin}: this deployment fetches only URLs seen in the session, and ${call.session ? 'its host keeps no record of them' : 'the call has no session'}, so it can fetch none. Ask the user to run the fetch themselves, or the operator to set the tool-web row's provenance to warn or off.`, { details: { origin } })
  }
  throw new WebError('WEB_URL_NOT_IN_CONTEXT', `web_fetch refused a URL of ${origin}: it is not one seen in this session (a web_search result, a link of a page fetched here, a redirect followed, or a URL the user gave), and this deployment fetches no other${settings.provenanceSameOrigin ? ' (nor any other URL of a site seen here)' : ''}. Pass a URL exactly as a search result or page listed it, search for the page with web_search, or ask the user to paste the URL.`, { details: { origin } })
}

/** The most URLs taken from the text one fetch shows (its links list holds at most the reader's own bound, 50 per page). */
export const TEXT_URLS_MAX = 1000

/**
 * Adds what a fetch saw: the URL asked for, every redirect hop followed, the
 * final URL, the document's links, and the URLs written in the text the
 * model is shown (a link past the reader's bound, a URL in a PDF's or a
 * plain text's words), at most TEXT_URLS_MAX. A wall's text is never shown,
 * so its URLs are not taken.
 */
export async function recordFetched(settings: ProvenanceSettings, requested: string, document: FetchedDocument, call: ToolCallContext): Promise<void> {
  if (settings.provenance === 'off') return
  const shown = isWithheld(document) ? '' : [document.text, ...(document.query?.passages ?? []).map((passage) => passage.text)].join('\n')
  await record(settings, call, [
    [[requested, document.url], 'fetched'],
    [(document.provenance?.redirects ?? []).map((hop) => hop.url), 'redirect'],
    [(document.links ?? []).map((link) => link.url), 'link'],
    [urlsInText(shown, TEXT_URLS_MAX), 'link'],
  ])
}

/** Adds what a search saw: its sources' URLs and those its answers cite. */
export async function recordSearched(settings: ProvenanceSettings, output: WebSearchOutput, call: ToolCallContext): Promise<void> {
  await record(settings, call, [[[...output.sources.map((source) => source.url), ...output.answers.flatMap((answer) => answer.citations.map((citation) => citation.url))], 'search']])
}

async function record(settings: ProvenanceSettings, call: ToolCallContext, batches: [string[], SeenUrlSource][]): Promise<void> {
  const seen: SeenUrls | undefined = call.session?.seenUrls
  if (settings.provenance === 'off' || !seen) return
  for (const [urls, source] of batches) seen.add(urls, source)
  const dropped = seen.takeDropNotice()
  if (dropped) {
    await call.session?.append(SEEN_URLS_DROPPED_EVENT, { callId: call.callId, max: dropped.max, dropped: dropped.dropped, note: `This session has seen more than ${dropped.max} URLs; the oldest are forgotten, and web_fetch's provenance gate no longer admits them (said once per session).` }, { visibility: 'log' })
  }
}
