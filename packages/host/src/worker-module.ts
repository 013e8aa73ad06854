import type { Worker, WorkerOptions } from 'node:worker_threads'

/**
 * The one rule for loading a worker thread's module, for every package that
 * starts one (the extraction pool, run_code): the module beside the caller,
 * the compiled `.js` when the caller runs from dist/, the TypeScript source
 * when the caller itself runs as `.ts` under tsx (tests, benchmarks), so
 * what runs in the worker is always the code beside the caller, never a
 * build that may be stale.
 *
 * `here` is the caller's `import.meta.url`; `name` the module's file name
 * without its extension (`'./extract-worker'`).
 */
export function workerModuleBeside(here: string, name: string): URL {
  return new URL(`${name}${new URL(here).pathname.endsWith('.ts') ? '.ts' : '.js'}`, here)
}

/**
 * Starts a worker on `module`. TypeScript source needs tsx's loader, which
 * does not reach worker threads on Node 20 (not even with
 * `execArgv: ['--import', 'tsx']`), so the worker registers it
 * (tsx/esm/api) before it imports the module; tsx is then resolved from
 * here, where it is a development dependency of the workspace.
 */
export function startModuleWorker(module: URL, options: WorkerOptions = {}): Worker {
  // Got here, not imported: every start of a host loads this contract, few start a worker.
  const { Worker } = process.getBuiltinModule('node:worker_threads')
  if (!module.pathname.endsWith('.ts')) return new Worker(module, options)
  const api = import.meta.resolve('tsx/esm/api')
  const code = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}) })`
  return new Worker(code, { ...options, eval: true })
}
