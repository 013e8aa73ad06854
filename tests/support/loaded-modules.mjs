// Preloaded by tests/cli-operator.spec.ts: at exit, writes every module URL this process loaded (ESM loads, and CommonJS files) to $DSH_TEST_MODULES_FILE.
import { register, createRequire } from 'node:module'
import { writeFileSync } from 'node:fs'

const { port1, port2 } = new MessageChannel()
const urls = []
port1.on('message', (url) => urls.push(url))
port1.unref()
register(
  'data:text/javascript,' + encodeURIComponent('let port; export function initialize(data) { port = data.port } export async function load(url, context, next) { port.postMessage(url); return next(url, context) }'),
  { data: { port: port2 }, transferList: [port2] },
)
const require = createRequire(import.meta.url)
process.on('exit', () => {
  writeFileSync(process.env.DSH_TEST_MODULES_FILE, [...urls, ...Object.keys(require.cache)].join('\n'))
})
