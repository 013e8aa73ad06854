import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { compose, type Composition } from '../compose/boot.js'
import type { CredentialsService } from '../credentials/index.js'
import { defaultHome } from '../home.js'
import { baseURLChecks, type Check, type CheckStatus, compositionChecks, credentialChecks, providerRows, renderProviderChecks, searchProviderChecks, toolChecks, toolSchemaChecks, type WebLike, webChecks } from './doctor-checks.js'
import { stateStoreChecks } from './doctor-state.js'
import { homeChecks, nodeCheck, proxyCheck } from './doctor-environment.js'
import { findConfigDir, type GlobalOptions, type Output, UsageError } from './commands.js'
import { ignoredVariableChecks, networkPolicyChecks } from './doctor-policy.js'
import { routeLogsToStderr, withoutStartErrors } from './log-routing.js'
import { operatorPatches } from './operator-flags.js'
import { escapeForTerminal } from './terminal.js'
import { harnessPackageJson } from '../package-root.js'

/**
 * `dsh doctor`: boots the composition like every command and says, one line
 * per check, what is ok, what is off (warn) and what will fail, with the fix.
 * Exit 0 when nothing fails (warnings included), 1 when a check fails. It
 * touches the network to probe a base URL on a loopback or private address,
 * for the selected search provider's free check (its API's cheapest
 * authenticated request that costs nothing; none with --offline), with
 * --live for one real search, and with --self-test-fetch for its own
 * loopback server.
 */
export async function runDoctor(options: GlobalOptions & DoctorOptions, io: Output): Promise<number> {
  if (options.live && options.offline) throw new UsageError('dsh doctor: --live makes a search and --offline sends nothing to any provider; give one of them')
  const checks: Check[] = []
  let composition: Composition | undefined
  // A flag in the wrong form is a usage error (exit 2), not a finding.
  const packagePatches = operatorPatches(options)
  try {
    routeLogsToStderr()
    // Rows that do not start are findings here, not a reason to stop: doctor reports each with its fix.
    composition = await withoutStartErrors(() =>
      compose({ configDir: findConfigDir(options.configDir), preset: options.preset, overlays: options.config, packagePatches }),
    )
  } catch (error: any) {
    // A preset the command line names that is not there is the command line's mistake (exit 2), like a flag in the wrong form.
    if (error?.usage === true) throw error
    checks.push({ id: 'composition', status: 'fail', message: `the composition does not load: ${error?.message ?? error}`, fix: 'fix the file and row the message names' })
  }
  try {
    if (composition) {
      const web = composition.ctx.get('web') as WebLike | undefined
      const rows = providerRows(composition, web)
      checks.push(...compositionChecks(composition))
      checks.push(...webChecks(composition, web))
      checks.push(...(await stateStoreChecks(composition.ctx.get('stateStore'))))
      checks.push(...(await credentialChecks(rows, composition.ctx.get('credentials') as CredentialsService | undefined)))
      checks.push(...(await baseURLChecks(rows)))
      if (!options.offline) checks.push(...(await searchProviderChecks(rows, web, checks, options.live)))
      checks.push(...(await renderProviderChecks(web)))
    }
    checks.push(...(await homeChecks(defaultHome())))
    checks.push(proxyCheck())
    // dsh-harness's own engines.node: the same floor as every package of the family (tests/manifests.spec.ts).
    checks.push(await nodeCheck(harnessPackageJson()))
    if (composition) checks.push(...toolChecks(composition), ...(await toolSchemaChecks(composition)), ...networkPolicyChecks(composition))
    checks.push(...ignoredVariableChecks())
    if (options.selfTestFetch) checks.push(await fetchSelfTest(composition))
  } finally {
    await composition?.dispose()
  }
  const worst = worstOf(checks)
  io.out(options.json ? JSON.stringify({ checks, worst }, null, 2) : renderChecks(checks))
  return worst === 'fail' ? 1 : 0
}

export interface DoctorOptions {
  selfTestFetch: boolean
  /** One real search with the selected provider (paid where its API charges per search). */
  live: boolean
  /** No request to any provider: no free check, no live search (base URLs on loopback or private addresses are still probed). */
  offline: boolean
}

const RANK: Record<CheckStatus, number> = { ok: 0, warn: 1, fail: 2 }

export function worstOf(checks: Check[]): CheckStatus {
  return checks.reduce<CheckStatus>((worst, check) => (RANK[check.status] > RANK[worst] ? check.status : worst), 'ok')
}

const PREFIX: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'fail' }

/** One line per check, `ok  ` / `warn` / `fail` first, the fix indented below. */
export function renderChecks(checks: Check[]): string {
  const lines = checks.flatMap((check) => [
    `${PREFIX[check.status]} ${check.id}: ${check.message}`,
    ...(check.status !== 'ok' && check.fix ? [`       fix: ${check.fix}`] : []),
  ])
  const counts = (['fail', 'warn', 'ok'] as const).map((status) => `${checks.filter((check) => check.status === status).length} ${status}`).join(', ')
  return escapeForTerminal([...lines, '', `${counts}: ${worstOf(checks) === 'fail' ? 'something will fail (exit 1)' : 'nothing fails'}`].join('\n'))
}

/**
 * 9. The fetch provider's address policy, on loopback only: a fetch of a
 * server on 127.0.0.1, without trusting it, must be refused before any
 * request reaches the server.
 */
async function fetchSelfTest(composition: Composition | undefined): Promise<Check> {
  const id = 'self-test-fetch'
  const web = composition?.ctx.get('web') as WebLike | undefined
  if (!web) return { id, status: 'fail', message: 'no web service is mounted: nothing to test', fix: 'mount the web row and a fetch provider' }
  let requests = 0
  const server = createServer((_request, response) => {
    requests++
    response.end('<html><body><p>dsh doctor self-test</p></body></html>')
  })
  await new Promise<void>((resolveListen, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolveListen()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dsh-doctor-self-test`
  try {
    await web.fetch({ url }, { signal: AbortSignal.timeout(15_000) })
    return {
      id,
      status: 'warn',
      message: `the fetch provider "${web.config.fetchProvider}" fetched ${url} (${requests} request(s) reached the server): this composition trusts loopback addresses`,
      fix: 'remove 127.0.0.1 (or the range holding it) from privateHosts of the fetch row unless you mean the model to read loopback services',
    }
  } catch (error: any) {
    if (error?.code === 'WEB_BLOCKED_ADDRESS' && requests === 0) {
      return { id, status: 'ok', message: `the fetch provider "${web.config.fetchProvider}" refused ${url} as expected (WEB_BLOCKED_ADDRESS); no request reached the server` }
    }
    return {
      id,
      status: 'fail',
      message: `the fetch provider "${web.config.fetchProvider}" did not refuse ${url} with WEB_BLOCKED_ADDRESS: ${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}${requests ? ` (${requests} request(s) reached the server)` : ''}`,
      fix: 'check the fetchProvider setting and the fetch row; a loopback address must be refused unless privateHosts trusts it',
    }
  } finally {
    server.closeAllConnections()
    await new Promise((resolveClose) => server.close(resolveClose))
  }
}
