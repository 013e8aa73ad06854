import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten'
import { createBoundedInterpreter, type BoundedInterpreter, type WasmModule } from './code-memory.js'
import { ValueConverter, VmThrew } from './code-values.js'

export interface SandboxLimits {
  timeoutMs: number
  /** The interpreter's whole WebAssembly memory, at least 16 MB. */
  memoryBytes: number
  /** UTF-8 bytes of the result's JSON text, and of each tool call's input. */
  maxResultBytes: number
  /** Tool calls one run may make. */
  maxToolCalls: number
  /** Characters of console output kept at most; past it the run is stopped. */
  maxLogChars: number
}

export interface SandboxOptions extends SandboxLimits {
  /** Code ready for the interpreter (see prepareCode). */
  prepared: string
  /** The names under `tools.` in the code. */
  toolNames: string[]
  /** Runs one tool call given its input as JSON text; resolves to the JSON text of its structured output. A rejection becomes a thrown Error in the code. */
  callTool(name: string, inputJson: string): Promise<string>
  /** Sees each console line as it is written (the host streams them out of a worker). */
  onLog?(line: string): void
  /** The interpreter's WebAssembly module, compiled once by the host. */
  wasmModule?: WasmModule
}

export type SandboxErrorCode = 'CODE_ERROR' | 'CODE_TIMEOUT' | 'CODE_RESOURCE_LIMIT' | 'CODE_CANCELLED' | 'CODE_RESULT_NOT_JSON'

export type StopKind = 'timeout' | 'cancelled' | 'memory' | 'output' | 'calls' | 'result-size'

export interface SandboxError {
  code: SandboxErrorCode
  kind: 'syntax' | 'exception' | 'not-json' | StopKind
  name: string
  message: string
  line?: number
  stack?: string
}

export interface SandboxResult {
  logs: string[]
  /** The result's JSON text; absent when the code's value was undefined or it failed. */
  json?: string
  /** Conversions made to fit the result into JSON (see code-values.ts). */
  notes?: string[]
  error?: SandboxError
  /** Bytes of WebAssembly memory the interpreter held when it ended. */
  memoryBytes?: number
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
 * and the `tools` bindings cross the boundary, as JSON text. CPU time is
 * bounded by an interrupt handler and a timer, memory by the WebAssembly
 * memory's fixed maximum, tool calls by a count (how many run at once is the host's queue, NestedCalls). Meant
 * for a worker thread that is thrown away after one run: once a run has
 * stopped, nothing in the interpreter is touched again or disposed.
 */
export async function runInSandbox(options: SandboxOptions): Promise<SandboxResult> {
  const logs: string[] = []
  const interpreter = await createBoundedInterpreter(options.memoryBytes, options.wasmModule)
  const runtime = interpreter.QuickJS.newRuntime()
  // Still useful: it refuses a single allocation larger than the limit before the allocator is asked.
  runtime.setMemoryLimit(options.memoryBytes)
  runtime.setMaxStackSize(1024 * 1024)
  const deadline = Date.now() + options.timeoutMs
  let stopped: StopKind | undefined
  let wake!: () => void
  const woken = new Promise<'stopped'>((resolve) => (wake = () => resolve('stopped')))
  const stop = (kind: StopKind) => {
    stopped ??= kind
    wake()
  }
  runtime.setInterruptHandler(() => {
    if (interpreter.exhausted()) stop('memory')
    else if (Date.now() > deadline) stop('timeout')
    return stopped !== undefined
  })
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs)
  // Whatever the code did last, a run that hit a limit reports the limit, never success.
  const end = (result: Omit<SandboxResult, 'logs' | 'memoryBytes'>): SandboxResult => {
    clearTimeout(timer)
    if (!stopped && interpreter.exhausted()) stopped = 'memory'
    const memoryBytes = interpreter.bytes()
    if (stopped) return { logs, memoryBytes, error: stopError(stopped, options) }
    return { logs, memoryBytes, ...result }
  }

  try {
    const vm = runtime.newContext()
    const converter = new ValueConverter(vm)
    let logChars = 0
    const log = (line: string) => {
      logChars += line.length + 1
      if (logChars > options.maxLogChars) return stop('output')
      logs.push(line)
      options.onLog?.(line)
    }
    installConsole(vm, converter, log, () => options.maxLogChars - logChars, () => stopped !== undefined, stop)
    installTools(vm, converter, options, interpreter, () => stopped !== undefined, stop)

    const evaluated = vm.evalCode(options.prepared, FILENAME)
    if (evaluated.error) return end({ error: describeError(vm, evaluated.error, options) })
    const settled = vm.resolvePromise(evaluated.value)
    pump(vm)
    const winner = await Promise.race([settled, woken])
    if (winner === 'stopped' || stopped) return end({})
    if (winner.error) return end({ error: describeError(vm, winner.error, options) })
    return end(exportResult(vm, converter, winner.value, options))
  } catch (error) {
    // A trap in the interpreter (it can be left broken by running out of memory) ends the run; the limit is the cause when one was hit.
    if (stopped || interpreter.exhausted()) return end({})
    // Recursion inside the interpreter can reach the thread's own stack before QuickJS's check.
    if (error instanceof RangeError && /call stack/i.test(error.message)) return end({ error: stackOverflow() })
    throw error
  }
}

function exportResult(vm: QuickJSContext, converter: ValueConverter, value: QuickJSHandle, options: SandboxOptions): Omit<SandboxResult, 'logs'> {
  try {
    const converted = converter.toJson(value, 'result', 'result', options.maxResultBytes)
    if (converted.ok) return { json: converted.json, notes: converted.notes }
    if (converted.code === 'CODE_RESOURCE_LIMIT') return { error: stopError('result-size', options) }
    return { error: { code: 'CODE_RESULT_NOT_JSON', kind: 'not-json', name: 'ResultError', message: `The result cannot be returned: ${converted.message}. Return plain data (objects, arrays, strings, finite numbers, booleans, null).` } }
  } catch (error) {
    if (!(error instanceof VmThrew)) throw error
    const described = describeError(vm, error.handle, options)
    return { error: { ...described, message: `Converting the result to JSON failed: ${described.message}` } }
  }
}

function pump(vm: QuickJSContext) {
  const result = vm.runtime.executePendingJobs()
  if (result.error) result.error.dispose()
}

function installConsole(
  vm: QuickJSContext,
  converter: ValueConverter,
  log: (line: string) => void,
  remaining: () => number,
  isStopped: () => boolean,
  stop: (kind: StopKind) => void,
) {
  const consoleHandle = vm.newObject()
  for (const level of ['log', 'info', 'debug', 'warn', 'error'] as const) {
    const prefix = level === 'warn' || level === 'error' ? `[${level}] ` : ''
    const fn = vm.newFunction(level, (...args: QuickJSHandle[]) => {
      if (isStopped()) return
      const pieces: string[] = []
      let used = prefix.length
      for (const arg of args) {
        let converted
        try {
          converted = converter.convert(arg, '', 'log', Math.max(0, remaining() - used - 1))
        } catch (error) {
          // The deadline's interrupt (or a throwing getter) inside console.log: the run's own state decides what happens next.
          if (!(error instanceof VmThrew) || isStopped()) return
          throw error.handle
        }
        if (!converted.ok) return stop('output')
        const text = converted.text ? converter.copyOut(converted.text, converted.length, Infinity)?.text ?? '' : ''
        converted.text?.dispose()
        used += text.length + 1
        pieces.push(text)
      }
      if (!isStopped()) log(prefix + pieces.join(' '))
    })
    vm.setProp(consoleHandle, level, fn)
    fn.dispose()
  }
  vm.setProp(vm.global, 'console', consoleHandle)
  consoleHandle.dispose()
}

function installTools(
  vm: QuickJSContext,
  converter: ValueConverter,
  options: SandboxOptions,
  interpreter: BoundedInterpreter,
  isStopped: () => boolean,
  stop: (kind: StopKind) => void,
) {
  let dispatched = 0
  const waiting = new Set<QuickJSDeferredPromise>()
  const parse = vm.unwrapResult(vm.evalCode('JSON.parse', 'dsh-parse.js'))
  const rejectWith = (deferred: QuickJSDeferredPromise, name: string, code: string, message: string) => {
    const error = vm.newError({ name, message })
    const codeHandle = vm.newString(code)
    vm.setProp(error, 'code', codeHandle)
    codeHandle.dispose()
    deferred.reject(error)
    error.dispose()
  }
  const toolsHandle = vm.newObject()
  for (const name of options.toolNames) {
    const fn = vm.newFunction(name, (inputHandle?: QuickJSHandle) => {
      const deferred = vm.newPromise()
      // Once the run has stopped, nothing more is dispatched; the promise never settles.
      if (isStopped()) return deferred.handle
      if (dispatched >= options.maxToolCalls) {
        stop('calls')
        return deferred.handle
      }
      let inputJson = '{}'
      if (inputHandle !== undefined) {
        let converted
        try {
          converted = converter.toJson(inputHandle, 'input', 'input', options.maxResultBytes)
        } catch (error) {
          if (!(error instanceof VmThrew)) throw error
          if (isStopped()) return deferred.handle
          deferred.reject(error.handle)
          error.handle.dispose()
          return deferred.handle
        }
        if (!converted.ok) {
          const tooLarge = converted.code === 'CODE_RESOURCE_LIMIT'
          const message = tooLarge
            ? `The input of tools.${name} is more than ${options.maxResultBytes} bytes of JSON.`
            : `The input of tools.${name} cannot be sent: ${converted.message}. Tool inputs are plain JSON data.`
          rejectWith(deferred, 'TypeError', tooLarge ? 'CODE_RESOURCE_LIMIT' : 'INVALID_ARGUMENT', message)
          return deferred.handle
        }
        inputJson = converted.json ?? '{}'
      }
      dispatched++
      waiting.add(deferred)
      options.callTool(name, inputJson).then(
        (outputJson) => {
          if (isStopped()) return
          // Moving a large output in takes about three times its size (the text, its parse, the objects).
          if (Buffer.byteLength(outputJson) * 3 > options.memoryBytes) {
            rejectWith(deferred, 'ToolError', 'CODE_RESOURCE_LIMIT', `The output of tools.${name} (${Buffer.byteLength(outputJson)} bytes of JSON) does not fit in run_code's memory limit of ${Math.round(options.memoryBytes / 1048576)} MB.`)
            return
          }
          const text = vm.newString(outputJson)
          if (interpreter.exhausted()) return stop('memory')
          const parsed = vm.callFunction(parse, vm.undefined, text)
          text.dispose()
          if (parsed.error) {
            deferred.reject(parsed.error)
            parsed.error.dispose()
          } else {
            deferred.resolve(parsed.value)
            parsed.value.dispose()
          }
        },
        (error) => {
          if (isStopped()) return
          rejectWith(deferred, 'ToolError', error instanceof ToolCallFailure ? error.code : 'TOOL_ERROR', String(error?.message ?? error))
        },
      ).finally(() => {
        waiting.delete(deferred)
        if (isStopped()) return
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

function describeError(vm: QuickJSContext, handle: QuickJSHandle, options: SandboxLimits): SandboxError {
  const dumped = vm.dump(handle)
  const name = typeof dumped?.name === 'string' ? dumped.name : 'Error'
  const message = typeof dumped?.message === 'string' ? dumped.message : typeof dumped === 'string' ? dumped : JSON.stringify(dumped) ?? String(dumped)
  const stack = typeof dumped?.stack === 'string' ? dumped.stack : undefined
  const line = stack ? Number(new RegExp(`${FILENAME.replace('.', '\\.')}:(\\d+)`).exec(stack)?.[1]) || undefined : undefined
  if (name === 'InternalError' && /out of memory/i.test(message)) return { ...stopError('memory', options), line }
  if (name === 'InternalError' && /stack overflow/i.test(message)) return { ...stackOverflow(), line }
  if (name === 'InternalError' && /string too long/i.test(message)) {
    return { code: 'CODE_RESOURCE_LIMIT', kind: 'memory', name: 'RangeError', message: 'The code built a string longer than the interpreter allows (2^30 - 1 characters) and was stopped.', line }
  }
  const code = typeof dumped?.code === 'string' ? ` [${dumped.code}]` : ''
  return { code: 'CODE_ERROR', kind: 'exception', name, message: `${message}${code}`, line, stack }
}

function stackOverflow(): SandboxError {
  return { code: 'CODE_RESOURCE_LIMIT', kind: 'memory', name: 'RangeError', message: 'The code overflowed the stack (runaway recursion?) and was stopped.' }
}

export function stopError(kind: StopKind, options: Pick<SandboxLimits, 'timeoutMs' | 'maxLogChars' | 'memoryBytes' | 'maxResultBytes' | 'maxToolCalls'>): SandboxError {
  const error = (code: SandboxErrorCode, name: string, message: string): SandboxError => ({ code, kind, name, message })
  switch (kind) {
    case 'cancelled':
      return error('CODE_CANCELLED', 'Cancelled', 'The run was cancelled.')
    case 'timeout':
      return error('CODE_TIMEOUT', 'TimeoutError', `The code ran longer than its limit of ${options.timeoutMs} ms and was stopped.`)
    case 'output':
      return error('CODE_RESOURCE_LIMIT', 'OutputLimitError', `The code wrote more than ${options.maxLogChars} characters of console output and was stopped; the output up to the limit is kept.`)
    case 'memory':
      return error('CODE_RESOURCE_LIMIT', 'MemoryError', `The code used more than its memory limit of ${Math.round(options.memoryBytes / 1048576)} MB and was stopped.`)
    case 'calls':
      return error('CODE_RESOURCE_LIMIT', 'ToolCallLimitError', `The code tried to make more than ${options.maxToolCalls} tool calls, the most one run may make, and was stopped.`)
    case 'result-size':
      return error('CODE_RESOURCE_LIMIT', 'ResultSizeError', `The result is more than ${options.maxResultBytes} bytes of JSON, the most run_code returns (maxResultBytes of the run-code row); return a smaller value, such as a summary or a slice.`)
  }
}
