import { getQuickJS, type QuickJSContext, type QuickJSDeferredPromise, type QuickJSHandle } from 'quickjs-emscripten'
import { type CodeLanguage, CodeSyntaxError, prepareCode } from './code-transform.js'

export interface SandboxOptions {
  code: string
  /** Without it, code that is not JavaScript is tried as TypeScript. */
  language?: CodeLanguage
  timeoutMs: number
  memoryBytes: number
  signal: AbortSignal
  /** The names under `tools.` in the code. */
  toolNames: string[]
  /** Runs one tool call for the code; a rejection becomes a thrown Error in the code. */
  callTool(name: string, input: unknown): Promise<unknown>
  /** Characters of console output kept at most; past it the run is stopped (default 1,000,000). */
  maxLogChars?: number
  /** Sees each console line as it is written (the host streams them out of a worker). */
  onLog?(line: string): void
}

export interface SandboxError {
  kind: 'syntax' | 'exception' | 'timeout' | 'memory' | 'output' | 'cancelled'
  name: string
  message: string
  line?: number
  stack?: string
}

export interface SandboxResult {
  logs: string[]
  value?: unknown
  error?: SandboxError
}

export class ToolCallFailure extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
    this.name = 'ToolError'
  }
}

const FILENAME = 'run_code.js'

/**
 * Runs code in a QuickJS interpreter compiled to WebAssembly: its own heap,
 * no filesystem, network, process, timers or module loader; only `console`
 * and the `tools` bindings cross the boundary, as JSON data. CPU time is
 * bounded by an interrupt handler, memory by the runtime's limit, and the
 * whole run, waits for tools included, by a wall-clock deadline.
 */
export async function runInSandbox(options: SandboxOptions): Promise<SandboxResult> {
  const logs: string[] = []
  let prepared: string
  try {
    prepared = await prepareCode(options.code, options.language)
  } catch (error) {
    if (error instanceof CodeSyntaxError) return { logs, error: { kind: 'syntax', name: 'SyntaxError', message: error.message, line: error.line } }
    throw error
  }

  const QuickJS = await getQuickJS()
  const runtime = QuickJS.newRuntime()
  runtime.setMemoryLimit(options.memoryBytes)
  runtime.setMaxStackSize(1024 * 1024)
  const deadline = Date.now() + options.timeoutMs
  let stopped: SandboxError['kind'] | undefined
  runtime.setInterruptHandler(() => {
    if (options.signal.aborted) stopped ??= 'cancelled'
    else if (Date.now() > deadline) stopped ??= 'timeout'
    return stopped !== undefined
  })
  const vm = runtime.newContext()
  const deferreds = new Set<QuickJSDeferredPromise>()
  const maxLogChars = options.maxLogChars ?? 1_000_000
  let logChars = 0
  const log = (line: string) => {
    if (stopped) return
    logChars += line.length + 1
    if (logChars > maxLogChars) {
      stopped = 'output'
      return
    }
    logs.push(line)
    options.onLog?.(line)
  }
  let timer: NodeJS.Timeout | undefined
  let onAbort: (() => void) | undefined
  try {
    installConsole(vm, log)
    installTools(vm, options, deferreds, () => stopped === undefined)
    const evaluated = vm.evalCode(prepared, FILENAME)
    if (evaluated.error) {
      const error = describeError(vm, evaluated.error, stopped, options)
      evaluated.error.dispose()
      return { logs, error }
    }
    const promise = evaluated.value
    const settled = vm.resolvePromise(promise)
    promise.dispose()
    pump(vm)
    const stop = new Promise<'timeout' | 'cancelled'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - Date.now()))
      onAbort = () => resolve('cancelled')
      if (options.signal.aborted) onAbort()
      else options.signal.addEventListener('abort', onAbort, { once: true })
    })
    const winner = await Promise.race([settled, stop])
    if (winner === 'timeout' || winner === 'cancelled') {
      stopped ??= winner
      settled.then((result) => (result.error ?? result.value).dispose(), () => {})
      return { logs, error: stopError(stopped, options) }
    }
    if (winner.error) {
      const error = describeError(vm, winner.error, stopped, options)
      winner.error.dispose()
      return { logs, error }
    }
    const value = vm.dump(winner.value)
    winner.value.dispose()
    if (stopped === 'output') return { logs, error: stopError(stopped, options) }
    return { logs, value: value === undefined ? undefined : value }
  } finally {
    if (timer) clearTimeout(timer)
    if (onAbort) options.signal.removeEventListener('abort', onAbort)
    stopped ??= 'cancelled'
    for (const deferred of deferreds) deferred.dispose()
    vm.dispose()
    runtime.dispose()
  }
}

function pump(vm: QuickJSContext) {
  if (!vm.alive) return
  const result = vm.runtime.executePendingJobs()
  if (result.error) result.error.dispose()
}

function installConsole(vm: QuickJSContext, log: (line: string) => void) {
  const consoleHandle = vm.newObject()
  for (const level of ['log', 'info', 'debug', 'warn', 'error'] as const) {
    const fn = vm.newFunction(level, (...args: QuickJSHandle[]) => {
      const text = args.map((arg) => formatValue(vm.dump(arg))).join(' ')
      log(level === 'log' || level === 'info' || level === 'debug' ? text : `[${level}] ${text}`)
    })
    vm.setProp(consoleHandle, level, fn)
    fn.dispose()
  }
  vm.setProp(vm.global, 'console', consoleHandle)
  consoleHandle.dispose()
}

function installTools(vm: QuickJSContext, options: SandboxOptions, deferreds: Set<QuickJSDeferredPromise>, running: () => boolean) {
  const toolsHandle = vm.newObject()
  for (const name of options.toolNames) {
    const fn = vm.newFunction(name, (inputHandle?: QuickJSHandle) => {
      const input = inputHandle === undefined ? {} : vm.dump(inputHandle)
      const deferred = vm.newPromise()
      deferreds.add(deferred)
      options.callTool(name, input).then(
        (value) => {
          if (!vm.alive || !running()) return
          const handle = jsonToVm(vm, value)
          deferred.resolve(handle)
          handle.dispose()
        },
        (error) => {
          if (!vm.alive || !running()) return
          const handle = vm.newError({ name: 'ToolError', message: String(error?.message ?? error) })
          if (error instanceof ToolCallFailure) {
            const code = vm.newString(error.code)
            vm.setProp(handle, 'code', code)
            code.dispose()
          }
          deferred.reject(handle)
          handle.dispose()
        },
      ).finally(() => {
        if (!vm.alive) return
        deferreds.delete(deferred)
        deferred.dispose()
        pump(vm)
      })
      return deferred.handle
    })
    vm.setProp(toolsHandle, name, fn)
    fn.dispose()
  }
  vm.setProp(vm.global, 'tools', toolsHandle)
  toolsHandle.dispose()
  const frozen = vm.evalCode('Object.freeze(tools); Object.freeze(console); undefined')
  ;(frozen.error ?? frozen.value).dispose()
}

/** Moves JSON data into the VM through its own JSON.parse: no host objects cross. */
function jsonToVm(vm: QuickJSContext, value: unknown): QuickJSHandle {
  if (value === undefined) return vm.undefined
  const text = vm.newString(JSON.stringify(value))
  const json = vm.getProp(vm.global, 'JSON')
  const parse = vm.getProp(json, 'parse')
  const result = vm.callFunction(parse, json, text)
  text.dispose()
  parse.dispose()
  json.dispose()
  if (result.error) {
    result.error.dispose()
    return vm.null
  }
  return result.value
}

function describeError(vm: QuickJSContext, handle: QuickJSHandle, stopped: SandboxError['kind'] | undefined, options: SandboxOptions): SandboxError {
  if (stopped) return stopError(stopped, options)
  const dumped = vm.dump(handle)
  const name = typeof dumped?.name === 'string' ? dumped.name : 'Error'
  const message = typeof dumped?.message === 'string' ? dumped.message : formatValue(dumped)
  const stack = typeof dumped?.stack === 'string' ? dumped.stack : undefined
  const line = stack ? Number(new RegExp(`${FILENAME.replace('.', '\\.')}:(\\d+)`).exec(stack)?.[1]) || undefined : undefined
  if (/out of memory/i.test(message) || name === 'InternalError' && /memory/i.test(message)) {
    return { kind: 'memory', name: 'MemoryError', message: `The code used more than its memory limit of ${Math.round(options.memoryBytes / 1048576)} MB and was stopped.`, line }
  }
  if (name === 'InternalError' && /stack overflow/i.test(message)) {
    return { kind: 'memory', name: 'RangeError', message: 'The code overflowed the stack (runaway recursion?) and was stopped.', line }
  }
  const code = typeof dumped?.code === 'string' ? ` [${dumped.code}]` : ''
  return { kind: 'exception', name, message: `${message}${code}`, line, stack }
}

export function stopError(kind: SandboxError['kind'], options: Pick<SandboxOptions, 'timeoutMs' | 'maxLogChars' | 'memoryBytes'>): SandboxError {
  switch (kind) {
    case 'cancelled':
      return { kind, name: 'Cancelled', message: 'The run was cancelled.' }
    case 'output':
      return { kind, name: 'OutputLimitError', message: `The code wrote more than ${options.maxLogChars ?? 1_000_000} characters of console output and was stopped; the output up to the limit is kept.` }
    case 'memory':
      return { kind, name: 'MemoryError', message: `The code used more than its memory limit of ${Math.round(options.memoryBytes / 1048576)} MB and was stopped.` }
    default:
      return { kind: 'timeout', name: 'TimeoutError', message: `The code ran longer than its limit of ${options.timeoutMs} ms and was stopped.` }
  }
}

export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return 'undefined'
  try {
    return JSON.stringify(value)
  } catch {
    return String(value)
  }
}
