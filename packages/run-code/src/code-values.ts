import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten'
import { CONVERTER_SOURCE } from './code-converter-source.js'

/**
 * How values leave the sandbox. JSON is the only thing that crosses, and a
 * value JSON cannot carry is converted by a documented rule (with a note) or
 * refused with the path of the offending part; it never becomes "" or
 * "[object Object]". The table of rules is in docs/security.md ("Values
 * that leave the sandbox"); the converter itself, which runs inside the
 * interpreter, is in code-converter-source.ts. `result` mode is run_code's
 * result, `input` mode a tool call's input (stricter: what the result
 * converts with a note, an input refuses), `log` mode console output
 * (never refuses; shows NaN, undefined, 12n, [Function name], [Circular]).
 */
export type ConvertMode = 'result' | 'input' | 'log'

export const MAX_DEPTH = 500

export type Converted =
  | { ok: true; text?: QuickJSHandle; length: number; notes: string[] }
  | { ok: false; code: 'CODE_RESULT_NOT_JSON' | 'CODE_RESOURCE_LIMIT'; message: string }

const CHUNK_CHARS = 1 << 20

/** The interpreter threw while converting or copying (a getter, toJSON, the deadline's interrupt): the handle is what it threw. */
export class VmThrew extends Error {
  constructor(readonly handle: QuickJSHandle) {
    super('The interpreter threw while converting a value.')
  }
}

/**
 * The converter, evaluated in a context before any of the model's code runs,
 * so the intrinsics it uses are the originals; its handles stay the host's.
 */
export class ValueConverter {
  private readonly functions: QuickJSHandle
  private readonly convertHandle: QuickJSHandle
  private readonly sliceHandle: QuickJSHandle

  constructor(private readonly vm: QuickJSContext) {
    this.functions = vm.unwrapResult(vm.evalCode(CONVERTER_SOURCE, 'dsh-convert.js'))
    this.convertHandle = vm.getProp(this.functions, 'convert')
    this.sliceHandle = vm.getProp(this.functions, 'slice')
  }

  dispose() {
    if (!this.vm.alive) return
    this.convertHandle.dispose()
    this.sliceHandle.dispose()
    this.functions.dispose()
  }

  /** Converts a value to JSON text (or console text) inside the interpreter; `text` is absent for an undefined result. */
  convert(value: QuickJSHandle, root: string, mode: ConvertMode, maxChars: number, walkOnly = false): Converted {
    const vm = this.vm
    const args = [vm.newString(root), vm.newString(mode), vm.newNumber(maxChars), vm.newNumber(MAX_DEPTH), walkOnly ? vm.true : vm.false]
    const called = vm.callFunction(this.convertHandle, vm.undefined, value, ...args)
    for (const handle of args.slice(0, 4)) handle.dispose()
    if (called.error) throw new VmThrew(called.error)
    const outcome = called.value
    try {
      if (readProp(vm, outcome, 'ok') !== true) {
        const code = readProp(vm, outcome, 'code')
        const message = readProp(vm, outcome, 'message')
        return code === 'CODE_RESOURCE_LIMIT'
          ? { ok: false, code, message: '' }
          : { ok: false, code: 'CODE_RESULT_NOT_JSON', message: typeof message === 'string' ? message : 'it is not JSON data' }
      }
      const length = readProp(vm, outcome, 'length')
      const notes = readProp(vm, outcome, 'notes')
      const text = vm.getProp(outcome, 'text')
      if (vm.typeof(text) !== 'string') {
        text.dispose()
        return { ok: true, length: 0, notes: Array.isArray(notes) ? notes.map(String) : [] }
      }
      return { ok: true, text, length: typeof length === 'number' ? length : 0, notes: Array.isArray(notes) ? notes.map(String) : [] }
    } finally {
      outcome.dispose()
    }
  }

  /**
   * A value as JSON text in the host's hands, at most `maxBytes` of UTF-8:
   * converted inside, copied out, and checked for nesting deeper than
   * MAX_DEPTH (which the engine's JSON.stringify does not count), in which
   * case the walk runs to say where. `json` is absent for undefined.
   */
  toJson(value: QuickJSHandle, root: string, mode: 'result' | 'input', maxBytes: number): JsonConverted {
    let converted = this.convert(value, root, mode, maxBytes)
    for (let attempt = 0; ; attempt++) {
      if (!converted.ok) return converted
      if (!converted.text) return { ok: true, notes: converted.notes }
      const copied = this.copyOut(converted.text, converted.length, maxBytes)
      converted.text.dispose()
      if (!copied) return { ok: false, code: 'CODE_RESOURCE_LIMIT', message: '' }
      if (attempt > 0 || !nestsDeeperThan(copied.text, MAX_DEPTH)) return { ok: true, json: copied.text, notes: converted.notes }
      converted = this.convert(value, root, mode, maxBytes, true)
    }
  }

  /**
   * Copies a string out of the interpreter a megabyte at a time, so that
   * copying never needs much of the interpreter's own memory, and gives up
   * (undefined) past `maxBytes` of UTF-8.
   */
  copyOut(text: QuickJSHandle, length: number, maxBytes: number): { text: string; bytes: number } | undefined {
    const vm = this.vm
    if (length <= CHUNK_CHARS) {
      const whole = vm.getString(text)
      const bytes = Buffer.byteLength(whole)
      return bytes > maxBytes ? undefined : { text: whole, bytes }
    }
    const chunks: string[] = []
    let bytes = 0
    for (let start = 0; start < length;) {
      const startHandle = vm.newNumber(start)
      const sizeHandle = vm.newNumber(CHUNK_CHARS)
      const sliced = vm.callFunction(this.sliceHandle, vm.undefined, text, startHandle, sizeHandle)
      startHandle.dispose()
      sizeHandle.dispose()
      if (sliced.error) throw new VmThrew(sliced.error)
      const chunk = vm.typeof(sliced.value) === 'string' ? vm.getString(sliced.value) : ''
      sliced.value.dispose()
      if (!chunk.length) break
      bytes += Buffer.byteLength(chunk)
      if (bytes > maxBytes) return undefined
      chunks.push(chunk)
      start += chunk.length
    }
    return { text: chunks.join(''), bytes }
  }
}

export type JsonConverted =
  | { ok: true; json?: string; notes: string[] }
  | { ok: false; code: 'CODE_RESULT_NOT_JSON' | 'CODE_RESOURCE_LIMIT'; message: string }

/** Whether JSON text has arrays or objects nested more than `max` deep (brackets inside strings do not count). */
export function nestsDeeperThan(json: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < json.length; index++) {
    const code = json.charCodeAt(index)
    if (inString) {
      if (code === 92) index++
      else if (code === 34) inString = false
    } else if (code === 34) inString = true
    else if (code === 91 || code === 123) {
      if (++depth > max) return true
    } else if (code === 93 || code === 125) depth--
  }
  return false
}

/** A small primitive or list of strings from an object the converter made. */
function readProp(vm: QuickJSContext, object: QuickJSHandle, key: string): unknown {
  const handle = vm.getProp(object, key)
  try {
    const type = vm.typeof(handle)
    if (type === 'string') return vm.getString(handle)
    if (type === 'number') return vm.getNumber(handle)
    if (type === 'boolean' || type === 'object') return vm.dump(handle)
    return undefined
  } finally {
    handle.dispose()
  }
}
