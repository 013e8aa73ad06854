import type { Composition, RowState } from '../compose/boot.js'
import type { CredentialsService } from '../credentials/index.js'
import type { ToolsService } from '../tools/index.js'
import { compileInputSchema } from '../tools/validate-input.js'
import { probe, probeTarget, redactUrl } from './doctor-network.js'
import { type KnownProvider, knownProvider } from './doctor-providers.js'

export type CheckStatus = 'ok' | 'warn' | 'fail'

export interface Check {
  id: string
  status: CheckStatus
  message: string
  /** What to do about a warn or fail. */
  fix?: string
}

/** The part of ctx.web doctor reads; the harness does not depend on dsh-web. */
interface ProviderLike {
  id: string
  available(): boolean
  unavailableReason?(): string | undefined
  /** The provider's own proof that it works: a search provider's free request (SearchProvider.check), a fetch provider's loopback self-test (FetchProvider.check). */
  check?(call: { signal: AbortSignal }): Promise<string>
}

/** What a search answers, as far as doctor's --live line reads it. */
interface SearchAnswerLike {
  sources: unknown[]
}
export interface WebLike {
  config: { searchProvider?: string; fetchProvider?: string; render?: string; renderProvider?: string }
  listProviders(): { search: string[]; fetch: string[] }
  searchProvider(): ProviderLike
  fetchProvider(): ProviderLike
  renderProvider(): ProviderLike
  fetch(request: { url: string }, call: { signal: AbortSignal }): Promise<unknown>
  search(request: { query: string }, call: { signal: AbortSignal }): Promise<SearchAnswerLike>
}

const message = (error: any): string => String(error?.message ?? error)

/** 1. Every enabled row mounted; the loader's replacement warnings. */
export function compositionChecks(composition: Composition): Check[] {
  const rows = composition.rows()
  const enabled = rows.filter((row) => row.status !== 'disabled')
  const down = enabled.filter((row) => row.status !== 'mounted')
  const checks: Check[] = [
    down.length
      ? { id: 'composition', status: 'fail', message: `${enabled.length - down.length} of ${enabled.length} rows mounted; not mounted: ${down.map((row) => row.id).join(', ')}`, fix: 'see the rows below' }
      : { id: 'composition', status: 'ok', message: `all ${enabled.length} enabled rows mounted (${enabled.map((row) => row.id).join(', ')})` },
  ]
  for (const row of down) checks.push(rowCheck(row))
  composition.warnings.forEach((warning, index) =>
    checks.push({ id: `composition.warning.${index + 1}`, status: 'warn', message: warning, fix: 'restate the keys named in the row config of the file named, or accept the plugin defaults' }),
  )
  return checks
}

function rowCheck(row: RowState): Check {
  const id = `row.${row.id}`
  const disable = `or disable it with \`- id: ${row.id}\` / \`disabled: true\` in an overlay`
  if (row.status === 'pending') {
    const services = row.waitingFor?.join(', ') || '(unknown)'
    return { id, status: 'fail', message: `row "${row.id}" (${row.name}) is pending: it waits for the service(s) ${services}, which no mounted row provides`, fix: `mount the row that provides ${services}, ${disable}` }
  }
  if (row.status === 'starting') {
    return { id, status: 'fail', message: `row "${row.id}" (${row.name}) is still starting: its apply or a ready hook has not finished`, fix: `check what the plugin ${row.name} waits for at start, ${disable}` }
  }
  return { id, status: 'fail', message: `row "${row.id}" (${row.name}) failed to start: ${row.error}`, fix: `fix the row's config (from ${row.configFrom}) or the plugin ${row.name}, ${disable}` }
}

/** A mounted row of a provider doctor knows, with its resolved config. */
interface ProviderRow {
  row: RowState
  known: KnownProvider
  config: Record<string, unknown>
  /** Whether the web row selects it. */
  selected: boolean
}

export function providerRows(composition: Composition, web: WebLike | undefined): ProviderRow[] {
  return composition.rows().flatMap((row) => {
    const known = knownProvider(row.name)
    if (!known || row.status !== 'mounted') return []
    const config = (typeof row.config === 'object' && row.config !== null ? row.config : {}) as Record<string, unknown>
    const selected = known.kind === 'search' ? web?.config.searchProvider === known.id : web?.config.fetchProvider === known.id
    return [{ row, known, config, selected }]
  })
}

/** 2. The selected providers registered and available, and every registered provider's availability. */
export function webChecks(composition: Composition, web: WebLike | undefined): Check[] {
  if (!web) {
    const row = composition.rows().find((item) => item.name === 'dsh-web')
    if (!row || row.status === 'disabled') return [{ id: 'web', status: 'ok', message: 'no web row in this composition: no web providers to check' }]
    return [{ id: 'web', status: 'fail', message: `the web row "${row.id}" is ${row.status}: no ctx.web`, fix: 'see its row check above' }]
  }
  const checks: Check[] = []
  const registered = web.listProviders()
  for (const kind of ['search', 'fetch'] as const) {
    const configured = web.config[`${kind}Provider`]
    try {
      const provider = kind === 'search' ? web.searchProvider() : web.fetchProvider()
      checks.push({ id: `web.${kind}Provider`, status: 'ok', message: `${kind}Provider "${provider.id}" is registered and available` })
    } catch (error: any) {
      const fix = !configured
        ? `set \`${kind}Provider\` in the web row's config to one of: ${registered[kind].join(', ') || 'none registered'} (the seam has no default)`
        : error?.code === 'WEB_PROVIDER_NOT_REGISTERED'
          ? `mount the row of the provider "${configured}", or set \`${kind}Provider\` in the web row to one of: ${registered[kind].join(', ') || 'none registered'}`
          : error?.details?.reason
            ? `${error.details.reason} (the "${configured}" provider's row or environment)`
            : `fix the config of the "${configured}" provider's row as the message says`
      checks.push({ id: `web.${kind}Provider`, status: 'fail', message: message(error), fix })
    }
    for (const id of registered[kind]) {
      if (id === configured) continue
      const provider = lookupProvider(web, kind, id)
      if (!provider) continue
      const reason = provider.available() ? undefined : provider.unavailableReason?.() || 'it gave no reason'
      checks.push(
        reason
          ? { id: `provider.${id}`, status: 'warn', message: `${kind} provider "${id}" is registered (not selected) but not available: ${reason}`, fix: `fix its row, or disable the row if you do not use it` }
          : { id: `provider.${id}`, status: 'ok', message: `${kind} provider "${id}" is registered (not selected) and available` },
      )
    }
  }
  return checks
}

/** Reads a registered provider that is not the selected one, through the same selection by a copy of the config. */
function lookupProvider(web: WebLike, kind: 'search' | 'fetch', id: string): ProviderLike | undefined {
  const view = Object.create(web) as WebLike
  Object.defineProperty(view, 'config', { value: { ...web.config, [`${kind}Provider`]: id } })
  try {
    return kind === 'search' ? view.searchProvider() : view.fetchProvider()
  } catch (error: any) {
    const reason = error?.details?.reason ?? message(error)
    return { id, available: () => false, unavailableReason: () => reason }
  }
}

/** 3. The credential each provider needs: where it comes from, never its value. */
export async function credentialChecks(rows: ProviderRow[], credentials: CredentialsService | undefined): Promise<Check[]> {
  const checks: Check[] = []
  for (const { row, known, config, selected } of rows) {
    if (!known.credentialKey) continue
    const id = `credential.${known.id}`
    const name = config[known.credentialKey]
    const literal = known.literalKey ? config[known.literalKey] !== undefined && config[known.literalKey] !== '' : false
    if (typeof name !== 'string' || !name) {
      checks.push(
        literal
          ? { id, status: 'ok', message: `${known.id}: a literal ${known.literalKey} in row "${row.id}"`, fix: undefined }
          : { id, status: 'ok', message: `${known.id}: keyless (no ${known.credentialKey} configured in row "${row.id}"; nothing is sent)` },
      )
      continue
    }
    let source: string | undefined
    try {
      if (credentials) {
        const description = await credentials.describe(name)
        source = description.configured ? (description.source === 'environment' ? 'the environment' : 'the credentials store') : undefined
      } else {
        source = process.env[name] ? 'the environment' : undefined
      }
    } catch (error) {
      checks.push({ id, status: 'fail', message: `${name} (row "${row.id}", ${known.credentialKey}) could not be read: ${message(error)}`, fix: 'fix what the message names' })
      continue
    }
    if (source) checks.push({ id, status: 'ok', message: `${name} from ${source} (${known.id})` })
    else if (literal) checks.push({ id, status: 'ok', message: `${name} is not set; the literal ${known.literalKey} in row "${row.id}" is used (${known.id})` })
    else {
      const needed = known.credentialRequired !== false
      const status = needed && selected ? 'fail' : 'warn'
      const use = selected ? `the selected search provider ${known.id} needs it` : `${known.id} is mounted but not selected`
      checks.push({
        id,
        status,
        message: `${name} is missing: not in the environment nor in the credentials store${credentials ? '' : ' (no credentials row mounted)'}; ${use}`,
        fix: `dsh credentials set ${name}  (or export ${name})`,
      })
    }
  }
  return checks
}

/** 4. Each provider's base URL, where it came from, and a probe when it is on a loopback or private address. */
export async function baseURLChecks(rows: ProviderRow[]): Promise<Check[]> {
  const checks: Check[] = []
  for (const { row, known, config, selected } of rows) {
    if (!known.baseURLEnv) continue
    const id = `baseURL.${known.id}`
    const fromRow = typeof config.baseURL === 'string' && config.baseURL ? config.baseURL : undefined
    const fromEnv = process.env[known.baseURLEnv] || undefined
    const value = fromRow ?? fromEnv ?? known.defaultBaseURL
    const origin = fromRow ? `baseURL in row "${row.id}"` : fromEnv ? `the environment variable ${known.baseURLEnv}` : 'the default'
    const setting = fromRow ? `baseURL in row "${row.id}" (${row.configFrom})` : known.baseURLEnv
    if (!value) {
      checks.push({ id, status: selected ? 'fail' : 'warn', message: `${known.id}: no base URL is configured`, fix: `set ${known.baseURLEnv}, or baseURL in row "${row.id}"` })
      continue
    }
    const shown = redactUrl(value)
    let url: URL
    try {
      url = new URL(value)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`the scheme ${url.protocol} is not http or https`)
    } catch (error) {
      checks.push({ id, status: selected ? 'fail' : 'warn', message: `${known.id}: base URL ${shown} from ${origin} is not a usable URL: ${message(error)}`, fix: `fix ${setting}` })
      continue
    }
    const lookupNames = value !== known.defaultBaseURL
    const target = await probeTarget(url, { lookupNames })
    if (!target.probe) {
      checks.push({ id, status: 'ok', message: `${known.id}: base URL ${shown} from ${origin}; not probed: ${target.why}` })
      continue
    }
    const result = await probe(url, target)
    if (result.reached) {
      const status = result.status >= 500 ? 'warn' : 'ok'
      checks.push({
        id,
        status,
        message: `${known.id}: base URL ${shown} from ${origin} is reachable (HTTP ${result.status} from ${target.address})`,
        ...(status === 'warn' ? { fix: `check the service at ${shown}: it answers with a server error` } : {}),
      })
    } else {
      checks.push({
        id,
        status: selected ? 'fail' : 'warn',
        message: `${known.id}: base URL ${shown} from ${origin} is not reachable: ${result.error}`,
        fix: `start the service at ${shown}, or point ${setting} at one that runs`,
      })
    }
  }
  return checks
}

/** How long the selected provider's own check, or the --live search, may take. */
const PROVIDER_CHECK_MS = 15_000

/** What --live searches for: harmless, and says where it came from in the provider's logs. */
const LIVE_QUERY = 'dsh doctor'

/**
 * 5. Reachable is not working: the selected search provider's own check makes
 * the smallest request that proves a search would work (SearXNG: a JSON
 * search; a keyed API: its free authenticated request), ending with the error
 * a search would end with. Run only when its credential and base URL checks
 * did not fail (those name the fix already). A provider whose API has no free
 * request says so; `live` makes one real (paid) search with it.
 */
export async function searchProviderChecks(rows: ProviderRow[], web: WebLike | undefined, earlier: Check[], live: boolean): Promise<Check[]> {
  const row = rows.find((item) => item.selected && item.known.kind === 'search')
  if (!web || !row) return []
  const { id } = row.known
  if (earlier.some((item) => (item.id === `credential.${id}` || item.id === `baseURL.${id}`) && item.status === 'fail')) return []
  let provider: ProviderLike
  try {
    provider = web.searchProvider()
  } catch {
    return [] // Not registered or not available: web.searchProvider above says so.
  }
  if (provider.id !== id) return []
  const checks: Check[] = []
  if (provider.check) checks.push(await freeCheck(provider, id))
  else if (!live) checks.push({ id: `search.${id}`, status: 'ok', message: `${id}: not checked: its API has no request that costs nothing; \`dsh doctor --live\` makes one paid search` })
  if (live) checks.push(await liveSearch(web, id))
  return checks
}

/** A renderer's self-test, when the web row renders: a browser launched, fetched a loopback page, and contained its egress. */
const RENDER_CHECK_MS = 60_000

export async function renderProviderChecks(web: WebLike | undefined): Promise<Check[]> {
  if (!web?.config.render || web.config.render === 'never') return []
  let provider: ProviderLike
  try {
    provider = web.renderProvider()
  } catch (error: any) {
    // Registered but not available (its browser is not there): the provider's reason, and the fix for it.
    if (error?.code === 'WEB_PROVIDER_UNAVAILABLE') return [{ id: `render.${web.config.renderProvider}`, status: 'fail', message: message(error), fix: 'apt-get install chromium, or set executablePath in its row' }]
    return [{ id: 'render', status: 'fail', message: `the web row renders (render: ${web.config.render}) but ${codeOf(error)}${message(error)}`, fix: 'mount the dsh-web-fetch-browser row (the render preset does), or set render: never' }]
  }
  const id = `render.${provider.id}`
  if (!provider.check) return [{ id, status: 'ok', message: `${provider.id}: available; it has no self-test` }]
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), RENDER_CHECK_MS)
  try {
    return [{ id, status: 'ok', message: await provider.check({ signal: controller.signal }) }]
  } catch (error) {
    return [{ id, status: 'fail', message: `${provider.id}: ${codeOf(error)}${message(error)}`, fix: 'every rendered fetch would fail or leak this way: fix what the message names before rendering' }]
  } finally {
    clearTimeout(timer)
  }
}

async function freeCheck(provider: ProviderLike, id: string): Promise<Check> {
  try {
    const proved = await provider.check!({ signal: AbortSignal.timeout(PROVIDER_CHECK_MS) })
    return { id: `search.${id}`, status: 'ok', message: `${id}: ${proved}` }
  } catch (error: any) {
    // A base URL no free request derives from (DeepSeek behind a gateway): nothing proved, nothing failed.
    if (error?.details?.noFreeCheck === true) return { id: `search.${id}`, status: 'warn', message: `${id}: not checked: ${message(error)}`, fix: 'run `dsh doctor --live` to make one paid search with it' }
    return { id: `search.${id}`, status: 'fail', message: `${id}: a search fails: ${codeOf(error)}${message(error)}`, fix: 'every web_search will fail this way: fix what the message names' }
  }
}

/** --live: one real search with the selected provider (paid where the API charges per search). */
async function liveSearch(web: WebLike, id: string): Promise<Check> {
  try {
    const result = await web.search({ query: LIVE_QUERY }, { signal: AbortSignal.timeout(PROVIDER_CHECK_MS) })
    const count = result.sources.length
    return { id: `live.${id}`, status: 'ok', message: `${id}: a live search (q=${LIVE_QUERY}) answered with ${count} source${count === 1 ? '' : 's'}` }
  } catch (error: any) {
    return { id: `live.${id}`, status: 'fail', message: `${id}: a live search fails: ${codeOf(error)}${message(error)}`, fix: 'every web_search will fail this way: fix what the message names' }
  }
}

const codeOf = (error: any): string => (typeof error?.code === 'string' ? `${error.code}: ` : '')

/** 8. The tool roster, and the rows that register tools all mounted. */
export function toolChecks(composition: Composition): Check[] {
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  const rows = composition.rows()
  if (!tools) {
    const row = rows.find((item) => item.name.endsWith('/tools') && item.status !== 'disabled')
    if (!row) return [{ id: 'tools', status: 'ok', message: 'no tools row in this composition: no tools to check' }]
    return [{ id: 'tools', status: 'fail', message: `the tools row "${row.id}" is ${row.status}: no tools are registered`, fix: 'see its row check above' }]
  }
  const roster = tools.roster().map((tool) => tool.name)
  const all = tools.list().map((tool) => tool.name)
  const hidden = all.filter((name) => !roster.includes(name))
  const shown = `roster: ${roster.join(', ') || '(empty)'}${hidden.length ? `; callable from run_code: ${hidden.join(', ')}` : ''}`
  // A row waiting for a service its tools need (tool-web for web, tools) registers none of them.
  const waiting = rows.filter((row) => row.status === 'pending' && row.waitingFor?.some((service) => ['tools', 'web', 'network'].includes(service)))
  if (waiting.length) {
    return [{ id: 'tools', status: 'fail', message: `${shown}; missing the tools of ${waiting.map((row) => `row "${row.id}" (waits for ${row.waitingFor?.join(', ')})`).join(', ')}`, fix: 'mount the rows that provide the services named' }]
  }
  if (!roster.length) return [{ id: 'tools', status: 'warn', message: shown, fix: 'mount a row that registers tools (e.g. tool-web), or use a preset: --preset standard' }]
  return [{ id: 'tools', status: 'ok', message: shown }]
}

/**
 * Every registered tool's input schema compiled as its first call would
 * compile it (tools compile lazily, so that commands which only list them
 * never load Ajv): a schema Ajv refuses fails here, before any call does.
 */
export async function toolSchemaChecks(composition: Composition): Promise<Check[]> {
  const tools = composition.ctx.get('tools') as ToolsService | undefined
  if (!tools) return []
  const refused: string[] = []
  for (const tool of tools.list()) {
    try {
      await compileInputSchema(tool.name, tool.inputSchema)
    } catch (error: any) {
      refused.push(error?.message ?? String(error))
    }
  }
  if (refused.length) return [{ id: 'tools.schemas', status: 'fail', message: refused.join('; '), fix: "fix the tool's inputSchema in the plugin that registers it: every call to it fails until then" }]
  return [{ id: 'tools.schemas', status: 'ok', message: `${tools.list().length} input schemas compile` }]
}
